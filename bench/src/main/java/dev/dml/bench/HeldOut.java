package dev.dml.bench;

import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.train.result.TrainResult;
import tech.tablesaw.api.Table;

/**
 * Fashion-MNIST test images that P3, P5 and A1 score their trained models on, with the labels
 * read once.
 *
 * @param table the test images as a table (features and label)
 * @param labels the table's label column
 */
record HeldOut(Table table, int[] labels) {

    /**
     * Loads the first rows of the test split.
     *
     * @param rows how many, 0 for all of it
     * @return the rows and their labels
     */
    static HeldOut fashionMnist(int rows) {
        Table t = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TEST, rows)
                .toTable();
        return new HeldOut(t, t.intColumn(FashionMnist.LABEL).asIntArray());
    }

    /** @return the share of these images that the classes predicted for them get right */
    double accuracy(int[] predicted) {
        return Metrics.accuracy(predicted, labels);
    }

    /** @return the share of these images that the job's trained model classifies right */
    double accuracy(TrainResult result) {
        return accuracy(result.predictClasses(table));
    }
}
