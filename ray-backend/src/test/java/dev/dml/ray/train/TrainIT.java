package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.ray.Dml;
import dev.dml.DmlException;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.ProcessChecks;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.runner.TrainLocalTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tech.tablesaw.api.Table;

/**
 * Training on a real local cluster, as the kernel runs it: one embedded head and one driver for
 * the class, workers in their own JVMs. This JVM has no Ray on its class path.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TrainIT extends LocalClusterTests {

    private static final List<Long> actorPids = new CopyOnWriteArrayList<>();

    /** Records what the kernel sees, and when. */
    static class Recorder implements TrainingListener {
        final List<StepMetrics> steps = new CopyOnWriteArrayList<>();
        final List<EpochMetrics> epochs = new CopyOnWriteArrayList<>();
        final List<WorkerInfo> workers = new CopyOnWriteArrayList<>();
        volatile int stepsSeenAtFirstEpoch = -1;
        volatile boolean ended;

        @Override
        public void onStart(List<WorkerInfo> w) {
            workers.addAll(w);
            w.forEach(x -> actorPids.add(x.pid()));
        }

        @Override
        public void onStep(StepMetrics s) {
            steps.add(s);
        }

        @Override
        public void onEpoch(EpochMetrics e) {
            if (epochs.isEmpty()) {
                stepsSeenAtFirstEpoch = steps.size();
            }
            epochs.add(e);
        }

        @Override
        public void onEnd(TrainResult r) {
            ended = true;
        }
    }

    private static TrainSpecBuilder fraud(Table t, int workers, Recorder rec) {
        return TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 64, 32).optOptimizer(OptimizerSpec.adam(1e-2f))
                .optEpochs(4).optBatchSize(256).optWorkers(workers).optCpusPerWorker(1)
                .optValidationFraction(0.1).addListener(rec);
    }

    @Test
    @Order(1)
    void fraudOnTwoWorkersReachesHighAucAndStreamsProgress() {
        Table train = SyntheticFraud.generate(50_000, 1);
        Table test = SyntheticFraud.generate(20_000, 2);
        Recorder rec = new Recorder();
        TrainResult r = Dml.start(fraud(train, 2, rec).optName("fraud2").build(), driver)
                .await(Duration.ofMinutes(3));
        int[] labels = test.intColumn(SyntheticFraud.LABEL).asIntArray();
        double auc = Metrics.rocAuc(r.probabilities(test, 1), labels);
        double eps = r.epochs().get(3).examplesPerSecond();
        System.out.printf("fraud, 2 workers: AUC %.4f, %.0f examples/s, %.1f s, %s%n", auc, eps,
                r.wallSeconds(), r.epochs());
        assertTrue(auc >= 0.95, "AUC " + auc);
        assertEquals(2, r.workers().size());
        assertEquals(2, new HashSet<>(List.of(r.workers().get(0).pid(),
                r.workers().get(1).pid())).size(), "workers share a JVM: " + r.workers());
        for (WorkerInfo w : r.workers()) {
            assertNotEquals(driver.pid(), w.pid());
            assertNotEquals(ProcessHandle.current().pid(), w.pid());
        }
        assertEquals(4, rec.epochs.size());
        assertTrue(rec.stepsSeenAtFirstEpoch > 0 && rec.stepsSeenAtFirstEpoch < rec.steps.size(),
                "steps arrived only at the end: " + rec.stepsSeenAtFirstEpoch);
        assertEquals(r.steps().size(), rec.steps.size());
        assertTrue(rec.ended);
        assertTrue(rec.epochs.get(3).validationAuc() >= 0.95, rec.epochs.toString());
        StepMetrics last = rec.steps.get(rec.steps.size() - 1);
        assertTrue(last.allReduceBytes() > 0 && last.workers().get(1).rssBytes() > 0
                && last.workers().get(0).heapBytes() > 0,
                last.toString());
    }

    @Test
    @Order(2)
    void oneWorkerForComparisonAndTwoWorkersEqualOneOnConcatenatedBatches() {
        Recorder rec = new Recorder();
        TrainResult one = Dml.start(fraud(SyntheticFraud.generate(50_000, 1), 1, rec)
                .optName("fraud1").build(), driver).await(Duration.ofMinutes(3));
        System.out.printf("fraud, 1 worker: %.0f examples/s, %.1f s%n",
                one.epochs().get(3).examplesPerSecond(), one.wallSeconds());

        int batch = 32;
        Table t = SyntheticFraud.generate(2 * batch * 10, 5);
        ModelSpec model = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .addHidden(16).optStandardize(dev.dml.ray.data.FeatureStats.of(t,
                        SyntheticFraud.selection())).build();
        TrainSpecBuilder b = TrainSpec.builder().setColumns(SyntheticFraud.selection())
                .setModel(model).optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).optEpochs(2)
                .optShuffle(false) // one worker reads the interleaved rows in their order
                .optCpusPerWorker(0.5).optReportEvery(1);
        TrainResult r2 = Dml.start(b.setTable(t).optBatchSize(batch).optWorkers(2)
                .optName("eq2").build(), driver).await(Duration.ofMinutes(2));
        TrainResult r1 = Dml.start(b.setTable(TrainLocalTest.interleaved(t, batch))
                .optBatchSize(2 * batch).optWorkers(1).optName("eq1").build(), driver)
                .await(Duration.ofMinutes(2));
        assertEquals(20, r2.globalSteps());
        TrainLocalTest.assertClose(r1.parameters(), r2.parameters(), 1e-5, 1e-6);
    }

    @Test
    @Order(3)
    void fashionMnistSubsetOnTwoWorkersReachesEightyPercent() {
        FashionMnist train = FashionMnist.load(FashionMnist.DEBIAN_DIR,
                FashionMnist.Split.TRAIN, 10_000);
        FashionMnist test = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TEST,
                2_000);
        Recorder rec = new Recorder();
        TrainResult r = Dml.start(TrainSpec.builder().setTable(train.toTable())
                .setColumns(FashionMnist.selection()).setModel(ModelSpec.Family.MLP, 128)
                .optOptimizer(OptimizerSpec.adam(1e-3f)).optEpochs(3).optBatchSize(64)
                .optWorkers(2).optReportEvery(20).optName("fashion").addListener(rec).build(),
                driver).await(Duration.ofMinutes(3));
        double acc = Metrics.accuracy(r.predictClasses(test.toTable()), test.labels());
        System.out.printf("fashion-mnist 10k, 2 workers: accuracy %.4f, %.0f examples/s,"
                + " %.1f s%n", acc, r.epochs().get(2).examplesPerSecond(), r.wallSeconds());
        assertTrue(acc >= 0.80, "accuracy " + acc);
        assertEquals(r.model().inputs(), 784);
    }

    @Test
    @Order(4)
    void tooManyGpusFailsFastWithAHint() {
        long t0 = System.nanoTime();
        DmlException e = assertThrows(DmlException.class, () -> Dml.start(
                fraud(SyntheticFraud.generate(2_000, 1), 2, new Recorder())
                        .optGpusPerWorker(1).optName("gpu").build(), driver)
                .await(Duration.ofMinutes(1)));
        assertEquals("The job asks for 2 workers with 1 GPU each, but the cluster has 0 GPU"
                + " in all.", e.what());
        assertEquals("Lower optGpusPerWorker or optWorkers, or add GPU nodes to the cluster.",
                e.hint());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "took too long");
    }

    @Test
    @Order(5)
    void stopEndsTheJobWithAPartialResultAndKillsItsWorkers() throws Exception {
        Recorder rec = new Recorder();
        TrainJob job = Dml.start(fraud(SyntheticFraud.generate(50_000, 1), 2, rec)
                .optEpochs(50).optReportEvery(5).optName("stopme").build(), driver);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (rec.steps.size() < 10 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        TrainResult r = job.stop();
        assertTrue(r != null && r.stopped(), String.valueOf(r));
        assertTrue(r.globalSteps() < 50L * 70, "ran to the end");
        List<Long> pids = new ArrayList<>();
        r.workers().forEach(w -> pids.add(w.pid()));
        ProcessChecks.awaitDead(pids, Duration.ofSeconds(30), "process");
        assertTrue(driver.isAlive());
    }

    @Test
    @Order(6)
    void withNoFailuresAllowedAWorkerDyingFailsTheJobNamingItsRankAndLeavesNoActor()
            throws Exception {
        AtomicInteger seen = new AtomicInteger();
        Recorder rec = new Recorder() {
            @Override
            public void onStep(StepMetrics s) {
                super.onStep(s);
                if (seen.incrementAndGet() == 5) {
                    ProcessHandle.of(workers.get(1).pid())
                            .ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        };
        TrainJob job = Dml.start(fraud(SyntheticFraud.generate(50_000, 1), 2, rec)
                .optEpochs(50).optReportEvery(5).optMaxFailures(0).optName("doomed").build(),
                driver);
        DmlException e = assertThrows(DmlException.class, () -> job.await(Duration.ofMinutes(2)));
        long pid1 = rec.workers.get(1).pid();
        System.out.println("worker death: " + e.getMessage());
        assertTrue(e.what().startsWith("Rank 1 (pid " + pid1), e.getMessage());
        assertTrue(e.what().contains("its optMaxFailures"), e.what());
        assertTrue(e.hint().contains("Raise optMaxFailures"), e.hint());
        ProcessChecks.awaitDead(List.of(rec.workers.get(0).pid(), pid1), Duration.ofSeconds(30),
                "process");
        // the driver and the cluster still train
        TrainResult after = Dml.start(fraud(SyntheticFraud.generate(4_000, 1), 2, new Recorder())
                .optEpochs(1).optName("after").build(), driver).await(Duration.ofMinutes(1));
        assertEquals(1, after.epochs().size());
    }

    @Test
    @Order(7)
    void closeLeavesNoDriverNorActorProcess() throws Exception {
        List<Long> ours = new ArrayList<>(actorPids);
        ours.add(driver.pid());
        Path temp = cluster.tempDir().orElseThrow();
        cluster.close();
        ProcessChecks.awaitDead(ours, Duration.ofSeconds(30), "process");
        assertFalse(Files.exists(temp), "temp dir left: " + temp);
    }
}
