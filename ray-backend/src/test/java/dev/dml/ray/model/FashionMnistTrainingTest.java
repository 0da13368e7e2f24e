package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.NDArray;
import dev.dml.ray.NativeMemoryTest;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Single-process training on a Fashion-MNIST subset (the first 10k training images; 30k for the
 * slow test), evaluated on all 10k test images.
 */
class FashionMnistTrainingTest extends NativeMemoryTest {

    static Path dir() {
        return RealTables.fashionMnistDir();
    }

    private double train(ModelSpec spec, OptimizerSpec opt, int rows, int epochs,
            boolean viaArrow) {
        Path dir = dir();
        FashionMnist train = FashionMnist.load(dir, FashionMnist.Split.TRAIN, rows);
        FashionMnist test = FashionMnist.load(dir, FashionMnist.Split.TEST, 0);
        try (ShardDecoder dec = new ShardDecoder(root, "fmnist/0");
                ShardArrays data = viaArrow
                        ? dec.openArrays(
                                ArrowShards.encode(train.toTable(), FashionMnist.selection()),
                                manager)
                        : train.openArrays(manager);
                ShardArrays eval = test.openArrays(manager);
                ModelStage r = ModelStage.openWhole(spec, opt, "fmnist/0")) {
            int batch = 64;
            long t0 = System.nanoTime();
            for (int e = 0; e < epochs; e++) {
                for (int from = 0; from < data.rows(); from += batch) {
                    trainRows(r, data, from, Math.min(data.rows(), from + batch));
                    r.step();
                }
            }
            long t1 = System.nanoTime();
            float[] p = r.predict(eval.features());
            int[] y = eval.labels().toIntArray();
            int[] predicted = new int[y.length];
            for (int i = 0; i < y.length; i++) {
                int best = 0;
                for (int j = 1; j < 10; j++) {
                    if (p[i * 10 + j] > p[i * 10 + best]) {
                        best = j;
                    }
                }
                predicted[i] = best;
            }
            double acc = Metrics.accuracy(predicted, y);
            System.out.printf("%s: test accuracy %.4f after %d epochs (%.1f s training)%n",
                    spec, acc, epochs, (t1 - t0) / 1e9);
            return acc;
        }
    }

    @Test
    void mlpReaches80Percent() {
        double acc = train(ModelSpec.mlp(784, 10, 128), OptimizerSpec.adam(1e-3f), 10_000, 3, true);
        assertTrue(acc >= 0.80, "accuracy " + acc);
    }

    @Test
    void cnnReaches82Percent() {
        // About 20 s of training on one core; 0.84 measured.
        double acc = train(ModelSpec.cnn(10), OptimizerSpec.adam(2e-3f), 10_000, 3, false);
        assertTrue(acc >= 0.82, "accuracy " + acc);
    }

    @Test
    @Tag("slow")
    void cnnReaches86PercentOnMoreData() {
        double acc = train(ModelSpec.cnn(10), OptimizerSpec.adam(2e-3f), 30_000, 4, false);
        assertTrue(acc >= 0.86, "accuracy " + acc);
    }

    private static float trainRows(ModelStage r, ShardArrays data, int from, int to) {
        NDIndex rows = new NDIndex("{}:{}", from, to);
        try (NDArray x = data.features().get(rows); NDArray y = data.labels().get(rows)) {
            return r.trainBatch(x, y);
        }
    }
}
