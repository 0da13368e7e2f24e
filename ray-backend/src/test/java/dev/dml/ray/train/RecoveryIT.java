package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.Recovery;
import dev.dml.options.TrainOptions;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Recovery on a real local cluster: a worker JVM killed with {@code kill -9}, or sent the SIGTERM
 * of a pre-emption notice, in the middle of a job. The job replaces it, restores every worker
 * from a peer's in-memory snapshot and finishes with exactly the parameters of an uninterrupted
 * run (the data order is deterministic).
 */
@Tag("cluster")
class RecoveryIT extends LocalClusterTests {

    private static final Duration WAIT = Duration.ofMinutes(5);
    private static final int BATCH = 32;
    private static Table table;
    private static ModelSpec model;

    @BeforeAll
    static void makeTheModel() {
        table = SyntheticFraud.generate(2 * BATCH * 40, 11); // 40 steps an epoch on 2 ranks
        model = TrainLocalTest.mlp(table, 5, 32, 16);
    }

    /** Does something to a worker's process once the job has passed a step. */
    static final class Saboteur implements TrainingListener {
        final List<StepMetrics> steps = new CopyOnWriteArrayList<>();
        final List<Recovery> recoveries = new CopyOnWriteArrayList<>();
        private final long atStep;
        private final int worker;
        private final Consumer<ProcessHandle> act;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile List<WorkerInfo> workers = List.of();
        volatile long victim;
        /** The workers the job lists when it ends, as {@code %dml status} shows them. */
        volatile List<WorkerInfo> listedAtEnd = List.of();

        Saboteur(long atStep, int worker, Consumer<ProcessHandle> act) {
            this.atStep = atStep;
            this.worker = worker;
            this.act = act;
        }

        @Override
        public void onStart(List<WorkerInfo> w) {
            workers = List.copyOf(w);
        }

        @Override
        public void onStep(StepMetrics s) {
            steps.add(s);
            if (s.step() >= atStep && act != null && done.compareAndSet(false, true)) {
                victim = workers.get(worker).pid();
                ProcessHandle.of(victim).ifPresent(act);
            }
        }

        @Override
        public void onRecovery(Recovery r) {
            recoveries.add(r);
        }
    }

    private static TrainResult train(String name, Strategy strategy, int maxFailures,
            Saboteur saboteur) {
        return train(name, strategy, maxFailures, saboteur, false);
    }

    private static TrainResult train(String name, Strategy strategy, int maxFailures,
            Saboteur saboteur, boolean shardOptimizer) {
        return train(name, maxFailures, saboteur, spec(strategy).optShardOptimizer(
                shardOptimizer));
    }

    private static TrainSpecBuilder spec(Strategy strategy) {
        return TrainSpec.builder().setTable(table)
                .setColumns(SyntheticFraud.selection()).setModel(model)
                .optOptimizer(OptimizerSpec.adam(0.01f)).optEpochs(2).optBatchSize(BATCH)
                .optWorkers(2).optCpusPerWorker(0.5).optStrategy(strategy).optReportEvery(5);
    }

    private static TrainResult train(String name, int maxFailures, Saboteur saboteur,
            TrainSpecBuilder spec) {
        TrainJob job = Dml.start(spec.optMaxFailures(maxFailures).addListener(saboteur)
                .optName(name).build(), driver);
        TrainResult result = job.await(WAIT);
        saboteur.listedAtEnd = job.workers();
        return result;
    }

    private static void assertRecovered(TrainResult straight, TrainResult r, Saboteur s,
            boolean preemption) {
        assertEquals(1, r.recoveries().size(), r.toString());
        Recovery rec = r.recoveries().get(0);
        assertEquals(rec.toString(), s.recoveries.get(0).toString(), "the listener got the event");
        assertEquals(preemption, rec.preemption(), rec.toString());
        assertEquals("a peer's snapshot", rec.restoredFrom(), rec.toString());
        assertTrue(rec.resumedFrom() > 0 && rec.resumedFrom() <= rec.failedAt(), rec.toString());
        assertFalse(rec.workers().stream().anyMatch(w -> w.pid() == s.victim),
                "the lost worker is still listed: " + rec.workers());
        assertEquals(rec.workers().toString(), s.listedAtEnd.toString(),
                "the job (so %dml status) lists the workers after the recovery");
        assertFalse(ProcessHandle.of(s.victim).map(ProcessHandle::isAlive).orElse(false),
                "the lost worker still runs");
        assertEquals(straight.globalSteps(), r.globalSteps());
        assertEquals(straight.steps().size(), r.steps().size(), "the record has each step once");
        TrainLocalTest.assertClose(straight.parameters(), r.parameters(), 0, 0);
    }

    @Test
    void aKilledWorkerIsReplacedAndTheJobEndsAsIfNothingHappened() {
        TrainResult straight = train("straight", Strategy.data(), 3, new Saboteur(0, 0, null));
        assertTrue(straight.recoveries().isEmpty());

        Saboteur killer = new Saboteur(30, 1, ProcessHandle::destroyForcibly);
        TrainResult killed = train("killed", Strategy.data(), 3, killer);
        assertRecovered(straight, killed, killer, false);
        assertEquals(1, killed.failures());
        assertTrue(killed.recoverySeconds() > 0);

        // SIGTERM: the worker ends the step with its peers, hands over, leaves: nothing redone.
        Saboteur notice = new Saboteur(30, 1, ProcessHandle::destroy);
        TrainResult preempted = train("preempted", Strategy.data(), 3, notice);
        assertRecovered(straight, preempted, notice, true);
        assertEquals(0, preempted.failures());
        assertEquals(1, preempted.preemptions());
        assertEquals(0, preempted.stepsRedone());
        Recovery rec = preempted.recoveries().get(0);
        assertEquals(rec.failedAt(), rec.resumedFrom(), rec.toString());
    }

    /**
     * With {@code --shard-optimizer} a killed worker's range of the optimizer state is gone
     * with it: the job restores every worker from a peer's snapshot, gathered whole, re-shards
     * it over the new group and ends with the unsharded job's parameters.
     */
    @Test
    void aKilledWorkerOfAShardedJobIsReplacedAndEndsWithTheUnshardedParameters() {
        TrainResult straight = train("straight-whole", Strategy.data(), 3,
                new Saboteur(0, 0, null));
        Saboteur killer = new Saboteur(30, 1, ProcessHandle::destroyForcibly);
        TrainResult killed = train("killed-sharded", Strategy.data(), 3, killer, true);
        assertRecovered(straight, killed, killer, false);
        assertEquals(1, killed.failures());
    }

    /**
     * With {@code --shard-gradients} (ZeRO-2, three buckets: one per layer) the killed worker's
     * chunks of every bucket are gone too: the new group re-shards each bucket from the
     * gathered snapshot, and the job ends with the unsharded job's parameters (same buckets).
     */
    @Test
    void aKilledWorkerOfAJobShardingItsGradientsIsReplacedAndEndsWithTheUnshardedParameters() {
        double buckets = 0.0001; // 25 floats: each layer is a bucket
        TrainResult straight = train("straight-buckets", 3, new Saboteur(0, 0, null),
                spec(Strategy.data()).opt(TrainOptions.BUCKET_MB, buckets));
        Saboteur killer = new Saboteur(30, 1, ProcessHandle::destroyForcibly);
        TrainResult killed = train("killed-zero2", 3, killer, spec(Strategy.data())
                .opt(TrainOptions.BUCKET_MB, buckets).optShardGradients(true));
        assertRecovered(straight, killed, killer, false);
        assertEquals(1, killed.failures());
    }

    @Test
    @Tag("slow") // two staged jobs: CI runs it (-Pslow)
    void aLostStageComesBackFromTheCopyItsNeighbourKept() {
        Strategy twoStages = Strategy.model(2);
        TrainResult straight = train("staged", twoStages, 3, new Saboteur(0, 0, null));
        Saboteur killer = new Saboteur(30, 1, ProcessHandle::destroyForcibly);
        TrainResult killed = train("staged-killed", twoStages, 3, killer);
        assertRecovered(straight, killed, killer, false);
    }
}
