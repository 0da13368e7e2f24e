package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.JobNotice;
import dev.dml.events.JobStarted;
import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelSpecBuilder;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.worker.TrainWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * The driver's training loop with real {@link TrainWorker} actors in Ray's in-process LOCAL mode:
 * data-parallel equivalence with one worker on the concatenated batches (in the table's order
 * and in the seeded shuffled order), identical replicas, and exact resume from a checkpoint,
 * which shuffles too.
 */
@ExtendWith(LocalRayExtension.class)
public class TrainLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final ColumnSelection SEL = SyntheticFraud.selection();

    public static ModelSpec mlp(Table t) {
        return mlp(t, 3, 16);
    }

    /** An MLP for the synthetic fraud table {@code t}, standardized on it. */
    public static ModelSpec mlp(Table t, long seed, int... hidden) {
        ModelSpecBuilder b = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .optStandardize(FeatureStats.of(t, SEL)).optSeed(seed);
        for (int h : hidden) {
            b.addHidden(h);
        }
        return b.build();
    }

    /** A job on {@code t}, a synthetic fraud table, with the test MLP and no CPUs reserved. */
    public static TrainSpecBuilder fraudJob(Table t, OptimizerSpec optimizer, int epochs,
            int batch) {
        return TrainSpec.builder().setTable(t).setColumns(SEL).setModel(mlp(t))
                .optOptimizer(optimizer).optEpochs(epochs).optBatchSize(batch)
                .optCpusPerWorker(0);
    }

    public static TrainResult run(TrainSpec spec, FakeDriverContext ctx) {
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        return r;
    }

    /**
     * Rows of {@code t} reordered so that one worker's global batch {@code t} of {@code 2B}
     * rows is shard 0's batch {@code t} followed by shard 1's (shards: the two halves).
     */
    public static Table interleaved(Table t, int batch) {
        int half = t.rowCount() / 2;
        int[] idx = new int[t.rowCount()];
        int k = 0;
        for (int s = 0; s < half / batch; s++) {
            for (int shard = 0; shard < 2; shard++) {
                for (int i = 0; i < batch; i++) {
                    idx[k++] = shard * half + s * batch + i;
                }
            }
        }
        Table out = t.emptyCopy();
        for (int i : idx) {
            out.addRow(i, t); // not t.rows(idx): a Selection sorts the rows
        }
        return out;
    }

    public static void assertClose(float[] expected, float[] actual, double rel, double abs) {
        assertEquals(expected.length, actual.length);
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(expected[i] - actual[i]);
            double allowed = abs + rel * Math.abs(expected[i]);
            worst = Math.max(worst, allowed == 0 ? (err == 0 ? 0 : 1e9) : err / allowed);
            assertTrue(err <= allowed, "parameter " + i + ": " + expected[i] + " vs "
                    + actual[i]);
        }
        System.out.printf("parameters agree; worst error %.3f of the tolerance%n", worst);
    }

    @Test
    void twoWorkersEqualOneWorkerOnTheConcatenatedBatches() {
        int batch = 16;
        Table t = SyntheticFraud.generate(2 * batch * 8, 5);
        ModelSpec model = mlp(t);
        OptimizerSpec sgd = OptimizerSpec.sgd(0.05f, 0.9f);
        FakeDriverContext two = new FakeDriverContext();
        TrainResult r2 = run(TrainSpec.builder().setTable(t).setColumns(SEL).setModel(model)
                .optOptimizer(sgd).optEpochs(2).optBatchSize(batch).optWorkers(2)
                .optShuffle(false).optCpusPerWorker(0).optReportEvery(1).optName("eq2").build(),
                two);
        TrainResult r1 = run(TrainSpec.builder().setTable(interleaved(t, batch)).setColumns(SEL)
                .setModel(model).optOptimizer(sgd).optEpochs(2).optBatchSize(2 * batch)
                .optShuffle(false).optWorkers(1).optCpusPerWorker(0).optReportEvery(3)
                .optName("eq1").build(), new FakeDriverContext());
        assertEquals(16, r2.globalSteps());
        assertEquals(16, r1.globalSteps());
        // the driver compares the ranks' parameter hashes after every call (here every step)
        // and fails on any difference: reaching here means the replicas stayed identical
        assertClose(r1.parameters(), r2.parameters(), 1e-5, 1e-6);
        for (int i = 0; i < 16; i++) {
            assertEquals(r1.steps().get(i).loss(), r2.steps().get(i).loss(), 1e-5,
                    "loss of step " + (i + 1));
        }
        assertEquals(16, two.events(StepMetrics.class).size());
        assertEquals(2, two.events(EpochMetrics.class).size());
        assertEquals(1, two.events(JobStarted.class).size());
        StepMetrics s = r2.steps().get(3);
        assertEquals(2 * batch, s.examples());
        assertTrue(s.allReduceBytes() > 0, "no gradient bytes counted");
        assertEquals(2, s.workers().size());
        assertTrue(s.workers().get(0).heapBytes() > 0);
        assertEquals(0, r1.steps().get(3).allReduceBytes(), "one worker sends nothing");
        assertFalse(r2.stopped());
        assertEquals(t.rowCount(), r2.scores(t).length);
    }

    /**
     * With shuffling, step {@code t} of epoch {@code e} on shard {@code s} trains on the rows
     * {@link RowOrder} names: one unshuffled worker on those rows, both shards' batches side by
     * side and epoch after epoch, takes the same steps as two shuffling workers.
     */
    @Test
    void twoShufflingWorkersEqualOneWorkerOnTheirBatchesInTheSeededOrder() {
        int batch = 16;
        int steps = 8;
        long seed = 11;
        Table t = SyntheticFraud.generate(2 * batch * steps + 3, 5); // 3 rows left over
        ModelSpec model = mlp(t);
        OptimizerSpec sgd = OptimizerSpec.sgd(0.05f, 0.9f);
        TrainResult r2 = run(TrainSpec.builder().setTable(t).setColumns(SEL).setModel(model)
                .optOptimizer(sgd).optEpochs(2).optBatchSize(batch).optWorkers(2).optSeed(seed)
                .optCpusPerWorker(0).optReportEvery(3).optName("shuffled2").build(),
                new FakeDriverContext());
        RowOrder.Split split = RowOrder.split(t.rowCount(), 2, true, null, seed);
        Table concatenated = t.emptyCopy();
        for (int e = 0; e < 2; e++) {
            int[][] order = new int[2][];
            for (int s = 0; s < 2; s++) {
                order[s] = RowOrder.epoch(seed, e, s, split.rowsOf(s).length);
            }
            for (int step = 0; step < steps; step++) {
                for (int s = 0; s < 2; s++) {
                    int[] rows = split.rowsOf(s);
                    for (int i = step * batch; i < (step + 1) * batch; i++) {
                        concatenated.addRow(rows[order[s][i]], t);
                    }
                }
            }
        }
        TrainResult r1 = run(TrainSpec.builder().setTable(concatenated).setColumns(SEL)
                .setModel(model).optOptimizer(sgd).optEpochs(1).optBatchSize(2 * batch)
                .optShuffle(false).optWorkers(1).optCpusPerWorker(0).optReportEvery(4)
                .optName("ordered1").build(), new FakeDriverContext());
        assertEquals(2 * steps, r2.globalSteps());
        assertEquals(2 * steps, r1.globalSteps());
        assertClose(r1.parameters(), r2.parameters(), 1e-5, 1e-6);
        for (int i = 0; i < 2 * steps; i++) {
            assertEquals(r1.steps().get(i).loss(), r2.steps().get(i).loss(), 1e-5,
                    "loss of step " + (i + 1));
        }
    }

    @Test
    void resumeFromACheckpointEqualsAnUninterruptedRun(@TempDir Path dir) throws IOException {
        Table t = SyntheticFraud.generate(600, 9);
        ModelSpec model = mlp(t);
        TrainSpecBuilder base = TrainSpec.builder().setTable(t).setColumns(SEL).setModel(model)
                .optOptimizer(OptimizerSpec.adam(5e-3f)).optEpochs(3).optBatchSize(32)
                .optWorkers(2).optCpusPerWorker(0).optReportEvery(2);
        TrainResult whole = run(base.optName("whole").build(), new FakeDriverContext());
        assertEquals(27, whole.globalSteps()); // 300 rows per shard / 32 = 9 steps per epoch

        // "crash": stop the job at step 12; checkpoints every 5 steps, so step 10 is the last
        base.optCheckpoints(dir.resolve("ck"), 5).optName("crash");
        FakeDriverContext[] ctx = new FakeDriverContext[1];
        ctx[0] = new FakeDriverContext(e -> {
            if (e instanceof StepMetrics && ((StepMetrics) e).step() == 12) {
                ctx[0].lookup("dml-train/crash", JobControl.class).requestStop();
            }
        });
        TrainResult crashed = run(base.build(), ctx[0]);
        assertTrue(crashed.stopped());
        assertEquals(12, crashed.globalSteps()); // calls end at checkpoints: 11-12 was the last
        Path jobDir;
        try (var folders = Files.list(dir.resolve("ck"))) {
            jobDir = folders.collect(Collectors.toList()).get(0); // the job's own folder
        }
        assertTrue(jobDir.getFileName().toString().matches("crash-[0-9a-f]{12}"), "" + jobDir);
        assertEquals(List.of("ckpt-r0001-s000000000010.dml", "ckpt-r0001-s000000000005.dml"),
                Checkpoints.list(jobDir).stream()
                        .map(p -> p.getFileName().toString()).collect(Collectors.toList()));

        // the newest file is damaged: resume falls back to step 5
        Path newest = jobDir.resolve("ckpt-r0001-s000000000010.dml");
        byte[] bytes = Files.readAllBytes(newest);
        Files.write(newest, java.util.Arrays.copyOf(bytes, bytes.length - 3));
        FakeDriverContext resumedCtx = new FakeDriverContext();
        TrainResult resumed = run(base.optResume(true).build(), resumedCtx);
        assertEquals(List.of(new JobNotice(5, "{resume}: job 'crash' continues from its"
                + " checkpoint of step 5.")), resumedCtx.events(JobNotice.class));
        assertEquals(5, resumed.resumedFromStep());
        assertEquals(27, resumed.globalSteps());
        assertEquals(22, resumed.steps().size());
        assertEquals(whole.steps().get(26).loss(), resumed.steps().get(21).loss());
        assertEquals(crashed.steps().get(7).loss(), resumed.steps().get(2).loss());
        assertClose(whole.parameters(), resumed.parameters(), 0, 0);
    }
}
