package dev.dml.ray.train;

import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.train.result.TrainResult;
import tech.tablesaw.api.Table;

/**
 * The Fashion-MNIST slices the convergence tests train and score on: the first 6,000 training
 * images and the first 2,000 test images, loaded once per JVM. A constant class scores about
 * 0.1 on the test slice; a synchronous MLP or logistic regression 0.78-0.83.
 */
final class FashionMnistSlices {

    /** Held-out accuracy a good run reaches on the test slice. */
    static final double GOOD = 0.72;

    private static Table train;
    private static Table test;

    private FashionMnistSlices() {}

    static synchronized Table train() {
        if (train == null) {
            train = load(FashionMnist.Split.TRAIN, 6000);
        }
        return train;
    }

    static synchronized Table test() {
        if (test == null) {
            test = load(FashionMnist.Split.TEST, 2000);
        }
        return test;
    }

    /** The held-out accuracy of a job's model on the test slice. */
    static double accuracy(TrainResult r) {
        return accuracy(r, test());
    }

    /** The accuracy of a job's model on any Fashion-MNIST table. */
    static double accuracy(TrainResult r, Table scored) {
        return Metrics.accuracy(r.predictClasses(scored), labels(scored));
    }

    /** What always predicting class 0 scores on the test slice. */
    static double constantAccuracy() {
        return constantAccuracy(test());
    }

    /** What always predicting class 0 scores on any Fashion-MNIST table. */
    static double constantAccuracy(Table scored) {
        return Metrics.accuracy(new int[scored.rowCount()], labels(scored));
    }

    /** A Fashion-MNIST table's labels, its classes 0-9. */
    static int[] labels(Table t) {
        return t.intColumn(FashionMnist.LABEL).asIntArray();
    }

    private static Table load(FashionMnist.Split split, int rows) {
        return FashionMnist.load(RealTables.fashionMnistDir(), split, rows).toTable();
    }
}
