package dev.dml.ray.train;

import dev.dml.options.TransportKind;
import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * Variants of a data-parallel step in Ray's LOCAL mode. Gradient accumulation ({@code
 * --accumulate K}): with equal rows per update, K batches added up give the parameters of one K
 * times larger batch. The all-reduce in buckets during the backward ({@code --bucket-mb}), over
 * the direct links: two workers still equal one worker on the concatenated batches, and two
 * workers that all-reduce after the whole backward.
 */
@ExtendWith(LocalRayExtension.class)
class AccumulateLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private static TrainSpecBuilder job(Table t, String name, int batch, int k) {
        return variant(t, name, batch, 2).optShuffle(true).opt(TrainOptions.ACCUMULATE, k);
    }

    /** The test MLP, SGD with momentum, 2 epochs, rows in their stored order. */
    private static TrainSpecBuilder variant(Table t, String name, int batch, int workers) {
        return TrainLocalTest.fraudJob(t, OptimizerSpec.sgd(0.05f, 0.9f), 2, batch)
                .optWorkers(workers).optShuffle(false).optReportEvery(2).optName(name);
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
                .optStrategy(Strategy.pipeline(2, 2, PipelineSchedule.GPIPE)).build());
        assertTrue(staged.whatTemplate().startsWith("{accumulate} adds up whole batches"),
                staged.what());
        DmlException few = assertThrows(DmlException.class, () -> job(t, "few", 100, 3)
                .build());
        assertEquals("Each of the 2 workers gets 240 training rows, fewer than {batch-size} x"
                + " {accumulate} = 300.", few.whatTemplate());
    }

    @Test
    void bucketsDuringTheBackwardEqualOneWorkerAndTheReduceAfterIt() {
        int batch = 16;
        Table t = SyntheticFraud.generate(2 * batch * 8, 5);
        // the test MLP's layers hold 512 and 34 parameters: 30 floats make two buckets
        TrainResult overlapped = TrainLocalTest.run(variant(t, "buckets", batch, 2)
                .opt(TrainOptions.BUCKET_MB, 30 * 4 / 1e6).build(), new FakeDriverContext());
        TrainResult after = TrainLocalTest.run(variant(t, "after", batch, 2)
                .opt(TrainOptions.BUCKET_MB, 0.0).build(), new FakeDriverContext());
        TrainResult one = TrainLocalTest.run(variant(TrainLocalTest.interleaved(t, batch), "one",
                2 * batch, 1).build(), new FakeDriverContext());
        assertEquals("tcp", overlapped.workers().get(0).transport());
        assertEquals(16, overlapped.globalSteps());
        TrainLocalTest.assertClose(after.parameters(), overlapped.parameters(), 1e-6, 1e-7);
        TrainLocalTest.assertClose(one.parameters(), overlapped.parameters(), 1e-5, 1e-6);
        for (int i = 0; i < 16; i++) {
            assertEquals(one.steps().get(i).loss(), overlapped.steps().get(i).loss(), 1e-5,
                    "loss of step " + (i + 1));
        }
        assertTrue(overlapped.steps().get(3).allReduceBytes()
                > after.steps().get(3).allReduceBytes() - 8, "every gradient still travels");
    }

    @Test
    void bucketsWhereNothingOverlapsRefuseInOneLine() {
        Table t = SyntheticFraud.generate(2 * 16 * 8, 5);
        DmlException one = assertThrows(DmlException.class, () -> variant(t, "one", 16, 1)
                .opt(TrainOptions.BUCKET_MB, 2.0).build());
        assertEquals("{bucket-mb} overlaps the all-reduce with the backward pass, but one worker"
                + " all-reduces nothing.", one.whatTemplate());
        DmlException compressed = assertThrows(DmlException.class, () -> variant(t, "c", 16, 2)
                .opt(TrainOptions.BUCKET_MB, 2.0).optCompress("int8").build());
        assertTrue(compressed.hintTemplate().contains("leave {compress} out"),
                compressed.hintTemplate());
        DmlException ray = assertThrows(DmlException.class, () -> variant(t, "r", 16, 2)
                .opt(TrainOptions.BUCKET_MB, 2.0).opt(TrainOptions.TRANSPORT, TransportKind.RAY)
                .build());
        assertTrue(ray.whatTemplate().contains("{transport=ray}"), ray.whatTemplate());
        variant(t, "zero", 16, 1).opt(TrainOptions.BUCKET_MB, 0.0).build(); // 0 asks for nothing
    }
}
