package dev.dml.ray.train.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import dev.dml.ray.NativeMemoryTest;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.Objective;
import dev.dml.ray.model.OptimizerSpec;
import org.junit.jupiter.api.Test;

/**
 * Validation in chunks: a CNN's wide activations make its chunks small enough to hold at once
 * (notebook 03's 2,000 test images were one chunk of about 170 MB of activations in a worker
 * with a 2 GB budget), a narrow model keeps chunks of 4,096 rows, and the scores of many chunks
 * are those of one pass over all rows.
 */
class ValidationPassTest extends NativeMemoryTest {

    @Test
    void aCnnScoresInChunksThatFitTheBudget() {
        ModelSpec cnn = ModelSpec.cnn(10); // 28x28x1, conv 8 and 16 with pools, dense 64
        // conv, relu 8x28x28 each; pool 8x14x14; conv, relu 16x14x14 each; pool 16x7x7;
        // dense 64 and its relu; 10 outputs
        assertEquals(2 * 6272 + 1568 + 2 * 3136 + 784 + 2 * 64 + 10,
                cnn.activationFloatsPerRow());
        int rows = ValidationPass.chunkRows(cnn);
        assertTrue(rows >= ValidationPass.MIN_EVAL_ROWS && rows < ValidationPass.EVAL_ROWS,
                "rows " + rows);
        assertTrue(rows * cnn.activationFloatsPerRow() * Float.BYTES <= ValidationPass.EVAL_BYTES,
                "rows " + rows);
        assertEquals((2000 + rows - 1) / rows, ValidationPass.chunks(cnn, 2000));
    }

    @Test
    void narrowModelsKeepChunksOf4096Rows() {
        assertEquals(ValidationPass.EVAL_ROWS,
                ValidationPass.chunkRows(ModelSpec.mlp(30, 2, 64, 32)));
        assertEquals(1, ValidationPass.chunks(ModelSpec.mlp(30, 2, 64, 32), 4096));
        assertEquals(2, ValidationPass.chunks(ModelSpec.mlp(30, 2, 64, 32), 4097));
    }

    @Test
    void chunkedScoresAreThoseOfOnePass() {
        ModelSpec cnn = ModelSpec.cnn(10);
        int n = 1000; // several chunks, the last one short
        assertTrue(ValidationPass.chunks(cnn, n) > 2);
        FashionMnist test = FashionMnist.load(RealTables.fashionMnistDir(),
                FashionMnist.Split.TEST, n);
        try (ShardArrays v = test.openArrays(manager);
                ModelStage m = ModelStage.openWhole(cnn, OptimizerSpec.adam(1e-3f), "val/0")) {
            ValidationPass pass = new ValidationPass();
            for (int c = 0; c < ValidationPass.chunks(cnn, n); c++) {
                pass.forward(m, cnn, v, c, TrainWorker.NONE);
            }
            Evaluation chunked = pass.take();

            ModelStage.Scored whole;
            try (NDArray x = v.features().duplicate(); NDArray y = v.labels().duplicate()) {
                whole = m.score(x, y);
            }
            int[] labels = v.labels().toIntArray();
            int[] predicted = new int[n];
            for (int i = 0; i < n; i++) {
                predicted[i] = Objective.SOFTMAX_CROSS_ENTROPY.predictedClass(
                        whole.predictions(), i, 10);
            }
            assertEquals(whole.loss(), chunked.loss(), 1e-4);
            assertEquals(Metrics.accuracy(predicted, labels), chunked.accuracy(), 1e-9);
        }
    }
}
