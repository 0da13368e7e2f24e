package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * The all-reduce in buckets during the backward ({@code --bucket-mb}) in Ray's LOCAL mode, over
 * the direct links: two workers still equal one worker on the concatenated batches, and equal
 * two workers that all-reduce after the whole backward.
 */
class OverlapLocalTest {

    private static final ColumnSelection SEL = SyntheticFraud.selection();

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    private static TrainSpecBuilder job(Table t, String name, int batch, int workers) {
        return TrainSpec.builder().setTable(t).setColumns(SEL).setModel(TrainLocalTest.mlp(t))
                .optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).optEpochs(2).optBatchSize(batch)
                .optWorkers(workers).optShuffle(false).optCpusPerWorker(0).optReportEvery(2)
                .optName(name);
    }

    @Test
    void bucketsDuringTheBackwardEqualOneWorkerAndTheReduceAfterIt() {
        int batch = 16;
        Table t = SyntheticFraud.generate(2 * batch * 8, 5);
        // the test MLP's layers hold 512 and 34 parameters: 30 floats make two buckets
        TrainResult overlapped = TrainLocalTest.run(job(t, "buckets", batch, 2)
                .opt(TrainOptions.BUCKET_MB, 30 * 4 / 1e6).build(), new FakeDriverContext());
        TrainResult after = TrainLocalTest.run(job(t, "after", batch, 2)
                .opt(TrainOptions.BUCKET_MB, 0.0).build(), new FakeDriverContext());
        TrainResult one = TrainLocalTest.run(job(TrainLocalTest.interleaved(t, batch), "one",
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
        DmlException one = assertThrows(DmlException.class, () -> job(t, "one", 16, 1)
                .opt(TrainOptions.BUCKET_MB, 2.0).build());
        assertEquals("{bucket-mb} overlaps the all-reduce with the backward pass, but one worker"
                + " all-reduces nothing.", one.whatTemplate());
        DmlException compressed = assertThrows(DmlException.class, () -> job(t, "c", 16, 2)
                .opt(TrainOptions.BUCKET_MB, 2.0).opt(TrainOptions.COMPRESS, "int8").build());
        assertTrue(compressed.hintTemplate().contains("leave {compress} out"),
                compressed.hintTemplate());
        DmlException ray = assertThrows(DmlException.class, () -> job(t, "r", 16, 2)
                .opt(TrainOptions.BUCKET_MB, 2.0).opt(TrainOptions.TRANSPORT, "ray").build());
        assertTrue(ray.whatTemplate().contains("{transport=ray}"), ray.whatTemplate());
        job(t, "zero", 16, 1).opt(TrainOptions.BUCKET_MB, 0.0).build(); // 0 asks for nothing
    }
}
