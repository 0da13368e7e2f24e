package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.events.JobStarted;
import dev.dml.events.Resize;
import dev.dml.ray.collective.JoinFailingWorker;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Elastic data parallelism ({@code --workers MIN:MAX}) in Ray's LOCAL mode, where a test says
 * how much room the cluster has: fewer workers than shards train the same steps as one worker
 * per shard, and a job that grows mid-way ends with the same parameters.
 */
class ElasticLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final int BATCH = 16;
    private static final int SHARDS = 4;

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    private static TrainSpecBuilder job(Table t, String name) {
        ModelSpec model = TrainLocalTest.mlp(t);
        return TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(model).optOptimizer(OptimizerSpec.adam(0.01f)).optEpochs(2)
                .optBatchSize(BATCH).optCpusPerWorker(0).optReportEvery(2).optName(name);
    }

    private static TrainResult run(TrainSpec spec, WorkerRoom room, FakeDriverContext ctx) {
        JobRunner runner = JobRunner.of(spec, spec.name(), TIMEOUT);
        runner.room = room;
        TrainResult r = runner.run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        return r;
    }

    @Test
    void fewerWorkersThanShardsTrainWhatOnePerShardWould() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 7);
        TrainResult fixed = run(job(t, "fixed4").optWorkers(SHARDS).build(), () -> 99,
                new FakeDriverContext());
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult two = run(job(t, "elastic2").optWorkers(1, SHARDS).build(), () -> 2, ctx);
        FakeDriverContext alone = new FakeDriverContext();
        TrainResult one = run(job(t, "elastic1").optWorkers(1, SHARDS).build(), () -> 0, alone);
        assertEquals(2, ctx.events(JobStarted.class).get(0).workers().size());
        assertEquals(1, alone.events(JobStarted.class).get(0).workers().size());
        assertEquals(fixed.globalSteps(), two.globalSteps());
        assertEquals(12, two.globalSteps()); // 6 batches per shard, 2 epochs
        // the examples per step are the four shards' batches, at any size
        assertEquals(SHARDS * BATCH, two.steps().get(0).examples());
        TrainLocalTest.assertClose(fixed.parameters(), two.parameters(), 1e-4, 1e-5);
        TrainLocalTest.assertClose(fixed.parameters(), one.parameters(), 1e-4, 1e-5);
        for (int i = 0; i < 12; i++) {
            assertEquals(fixed.steps().get(i).loss(), two.steps().get(i).loss(), 1e-4,
                    "loss of step " + (i + 1));
        }
    }

    @Test
    void aJobGrowsWhenRoomAppearsAndEndsWhereAFixedOneDoes() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 9);
        TrainResult fixed = run(job(t, "fixedg").optWorkers(SHARDS).build(), () -> 99,
                new FakeDriverContext());
        AtomicInteger reads = new AtomicInteger();
        // two workers fit at the start (a read to start, one before the first call); from the
        // fourth read on, before the third call, a node has joined
        WorkerRoom room = () -> reads.incrementAndGet() < 4 ? 2 : SHARDS;
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult grown = run(job(t, "grows").optWorkers(2, SHARDS).build(), room, ctx);
        List<Resize> resizes = ctx.events(Resize.class);
        assertEquals(2, ctx.events(JobStarted.class).get(0).workers().size());
        assertEquals(1, resizes.size(), "" + resizes);
        assertEquals(2, resizes.get(0).from());
        assertEquals(SHARDS, resizes.get(0).to());
        assertEquals(4, resizes.get(0).step()); // two calls of 2 steps ran before
        assertEquals(SHARDS, grown.workers().size());
        assertEquals(fixed.globalSteps(), grown.globalSteps());
        TrainLocalTest.assertClose(fixed.parameters(), grown.parameters(), 1e-4, 1e-5);
    }

    @Test
    void row2AGrowWhoseNewWorkerFailsGoesOnWithItsWorkersAndSaysWhy() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 9);
        TrainResult fixed = run(job(t, "fixedf").optWorkers(SHARDS).build(), () -> 99,
                new FakeDriverContext());
        AtomicInteger reads = new AtomicInteger();
        // two workers fit at the start; from the fourth read on a node has joined, and the
        // workers started from then on die as they join, after the others listened anew
        WorkerRoom room = () -> {
            boolean joined = reads.incrementAndGet() >= 4;
            JoinFailingWorker.failNewOnes = joined;
            return joined ? SHARDS : 2;
        };
        TrainSpec spec = job(t, "failsgrow").optWorkers(2, SHARDS).build();
        JobRunner runner = JobRunner.of(spec, spec.name(), TIMEOUT);
        runner.room = room;
        runner.worker = JoinFailingTrainWorker::new;
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r;
        try {
            r = runner.run(ctx);
        } finally {
            JoinFailingWorker.failNewOnes = false;
        }
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        assertEquals(List.of(), ctx.events(Resize.class));
        List<String> lines = ctx.events(JobNotice.class).stream().map(JobNotice::template)
                .filter(n -> n.contains("grow")).toList();
        assertFalse(lines.isEmpty(), "the cell says the growth failed");
        for (String line : lines) {
            assertTrue(line.startsWith("The job could not grow to 4 workers and goes on with"
                    + " its 2: ") && line.contains("died while joining")
                    && !line.contains("\n"), line);
        }
        assertEquals(2, r.workers().size());
        assertEquals(fixed.globalSteps(), r.globalSteps());
        TrainLocalTest.assertClose(fixed.parameters(), r.parameters(), 1e-4, 1e-5);
    }

    @Test
    void aStagedStrategyRefusesARange() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 7);
        DmlException e = assertThrows(DmlException.class, () -> job(t, "staged")
                .optStrategy(Strategy.pipeline(2, 2, Strategy.Schedule.GPIPE))
                .optWorkers(2, 4).build());
        assertTrue(e.getMessage().contains("elastic"), e.getMessage());
    }
}
