package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Gradient accumulation ({@code --accumulate K}) in Ray's LOCAL mode: with equal rows per
 * update, K batches added up give the parameters of one K times larger batch.
 */
class AccumulateLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    private static TrainSpecBuilder job(Table t, String name, int batch, int k) {
        return TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(t)).optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f))
                .optEpochs(2).optBatchSize(batch).opt(TrainOptions.ACCUMULATE, k)
                .optWorkers(2).optCpusPerWorker(0).optReportEvery(2).optName(name);
    }

    @Test
    void kBatchesAddedUpEqualOneKTimesLargerBatch() {
        Table t = SyntheticFraud.generate(2 * 48 * 5, 11);
        TrainResult big = TrainLocalTest.run(job(t, "big", 48, 1).build(),
                new FakeDriverContext());
        TrainResult added = TrainLocalTest.run(job(t, "added", 16, 3).build(),
                new FakeDriverContext());
        TrainResult small = TrainLocalTest.run(job(t, "small", 16, 1).build(),
                new FakeDriverContext());
        assertEquals(10, big.globalSteps()); // 240 rows per worker / 48, 2 epochs
        assertEquals(10, added.globalSteps(), "steps count updates, not batches");
        assertEquals(30, small.globalSteps());
        assertEquals(2 * 48, added.steps().get(0).examples());
        TrainLocalTest.assertClose(big.parameters(), added.parameters(), 1e-5, 1e-6);
        for (int i = 0; i < 10; i++) {
            assertEquals(big.steps().get(i).loss(), added.steps().get(i).loss(), 1e-5,
                    "loss of step " + (i + 1));
        }
        // without the adding up, the same rows in three times the updates end elsewhere
        float[] a = big.parameters();
        float[] b = small.parameters();
        double diff = 0;
        for (int i = 0; i < a.length; i++) {
            diff = Math.max(diff, Math.abs(a[i] - b[i]));
        }
        assertTrue(diff > 1e-3, "three small updates differ from one big one: " + diff);
    }

    @Test
    void stagedStrategiesAndTooFewRowsRefuseInOneLine() {
        Table t = SyntheticFraud.generate(2 * 48 * 5, 11);
        DmlException staged = assertThrows(DmlException.class, () -> job(t, "staged", 16, 2)
                .optStrategy(Strategy.pipeline(2, 2, Strategy.Schedule.GPIPE)).build());
        assertTrue(staged.whatTemplate().startsWith("{accumulate} adds up whole batches"),
                staged.what());
        DmlException few = assertThrows(DmlException.class, () -> job(t, "few", 100, 3)
                .build());
        assertEquals("Each of the 2 workers gets 240 training rows, fewer than {batch-size} x"
                + " {accumulate} = 300.", few.whatTemplate());
    }
}
