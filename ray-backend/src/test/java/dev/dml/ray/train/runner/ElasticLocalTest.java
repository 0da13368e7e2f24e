package dev.dml.ray.train.runner;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.events.JobStarted;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.JoinFailingWorker;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.collective.NodeLayouts;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.JoinFailingTrainWorker;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.recovery.WorkerRoom;
import dev.dml.ray.train.worker.TrainWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * Elastic data parallelism ({@code --workers MIN:MAX}) in Ray's LOCAL mode, where a test says
 * how much room the cluster has: fewer workers than shards train the same steps as one worker
 * per shard, and a job that grows mid-way ends with the same parameters. Also ranks that a
 * recovery moves between nodes, and new workers that fail as they join.
 */
@ExtendWith(LocalRayExtension.class)
public class ElasticLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final int BATCH = 16;
    private static final int SHARDS = 4;

    public static TrainSpecBuilder job(Table t, String name) {
        return TrainLocalTest.fraudJob(t, OptimizerSpec.adam(0.01f), 2, BATCH).optReportEvery(2)
                .optName(name);
    }

    public static TrainResult run(TrainSpec spec, WorkerRoom room, FakeDriverContext ctx) {
        JobRunner runner = JobRunner.of(spec, spec.name(), TIMEOUT);
        runner.room = room;
        TrainResult r = runner.run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        return r;
    }

    /** The job on one worker per shard, with room for all: what an elastic one must equal. */
    private static TrainResult fixed(Table t, String name) {
        return run(job(t, name).optWorkers(SHARDS).build(), () -> 99, new FakeDriverContext());
    }

    @Test
    void fewerWorkersThanShardsTrainWhatOnePerShardWould() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 7);
        TrainResult fixed = fixed(t, "fixed4");
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
        TrainResult fixed = fixed(t, "fixedg");
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
        TrainResult fixed = fixed(t, "fixedf");
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
        runner.worker = (io.ray.api.function.RayFunc0<TrainWorker>) JoinFailingTrainWorker::new;
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

    /** The job's actor group, from its control in the context. */
    private static ActorGroup<?> group(FakeDriverContext ctx) {
        for (AutoCloseable r : ctx.resources().values()) {
            if (r instanceof JobControl control) {
                try {
                    var field = JobControl.class.getDeclaredField("groups");
                    field.setAccessible(true);
                    for (Object g : (List<?>) field.get(control)) {
                        if (g instanceof ActorGroup<?> group) {
                            return group;
                        }
                    }
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalStateException("no job runs");
    }

    /**
     * An asynchronous job whose ranks are joined again mid-job on other nodes, as a recovery
     * that moves ranks between nodes joins them (issue 26 row 3): every rank and the parameter
     * servers take the new node layout, so each node has one leader that pushes, and no client
     * the servers wait for is missing ({@code ssp:0} would stall on one).
     */
    @Test
    void row3AfterRanksMoveBetweenNodesEachNodeHasOneLeaderAndEveryClientPushes() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 11);
        TrainSpec spec = job(t, "layout").optWorkers(SHARDS).optSync("ssp:0")
                .optParameterServers(1).build();
        // after step 4 two nodes of two ranks; after step 8 rank 0 moved to the second node,
        // which rank 0 then leads, and rank 1 is alone on the first and leads it
        Map<Long, List<String>> moves = Map.of(4L, List.of("a", "a", "b", "b"),
                8L, List.of("b", "a", "b", "b"));
        AtomicReference<FakeDriverContext> holder = new AtomicReference<>();
        FakeDriverContext ctx = new FakeDriverContext(e -> {
            if (e instanceof StepMetrics m && moves.containsKey(m.step())) {
                NodeLayouts.rejoin(group(holder.get()), moves.get(m.step()), TIMEOUT);
            }
        });
        holder.set(ctx);
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        assertEquals(12, r.globalSteps());
        long perClient = 2L * r.parameters().length * Float.BYTES; // a push and its reply
        for (StepMetrics s : r.steps()) {
            // one client per worker while all share a node; then one per node, its leader
            long clients = s.step() <= 4 ? SHARDS : 2;
            assertEquals(clients * perClient, s.allReduceBytes(), "step " + s.step());
        }
        assertTrue(Float.isFinite(r.finalLoss()));
    }

    @Test
    void aStagedStrategyRefusesARange() {
        Table t = SyntheticFraud.generate(SHARDS * BATCH * 6, 7);
        DmlException e = assertThrows(DmlException.class, () -> job(t, "staged")
                .optStrategy(Strategy.pipeline(2, 2, PipelineSchedule.GPIPE))
                .optWorkers(2, 4).build());
        assertTrue(e.getMessage().contains("elastic"), e.getMessage());
    }
}
