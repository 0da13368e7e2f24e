package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static dev.dml.ray.train.runner.StagedLocalTest.assertSameTraining;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.PipelineMetrics;
import dev.dml.ray.Dml;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Model, pipeline and hybrid parallelism on a real local cluster, one stage actor per JVM, as
 * the kernel runs them: each trains exactly what the unsplit model trains on the same batches,
 * and the pipeline events reach the kernel's listener.
 */
@Tag("cluster")
class StagedIT extends LocalClusterTests {

    private static final int BATCH = 32;
    private static final Duration WAIT = Duration.ofMinutes(3);
    private static Table table;
    private static ModelSpec model;

    @BeforeAll
    static void makeTheModel() {
        table = SyntheticFraud.generate(2 * BATCH * 5, 3);
        model = TrainLocalTest.mlp(table, 5, 32, 16);
    }

    private static TrainResult train(Table t, int batch, Strategy s, RecordedEvents rec) {
        return train(t, batch, s, rec, true);
    }

    /** Without shuffling, one replica can read interleaved rows as two replicas read theirs. */
    private static TrainResult train(Table t, int batch, Strategy s, RecordedEvents rec,
            boolean shuffle) {
        return Dml.start(TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(model).optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).optEpochs(1)
                .optBatchSize(batch).optCpusPerWorker(0).optStrategy(s).addListener(rec)
                .optShuffle(shuffle).optName("staged").build(), driver).await(WAIT);
    }

    @Test
    void everyStrategyTrainsWhatTheUnsplitModelTrains() {
        TrainResult whole = train(table, BATCH, Strategy.data(), new RecordedEvents());

        RecordedEvents rec = new RecordedEvents();
        TrainResult split = train(table, BATCH, Strategy.model(2), rec);
        assertSameTraining(whole, split);
        List<WorkerInfo> who = split.workers();
        assertEquals(2, who.size());
        assertEquals(2, new HashSet<>(who.stream().map(WorkerInfo::pid).toList()).size(),
                "one JVM per stage");
        assertEquals(split.globalSteps(), rec.pipeline.size());
        assertEquals(table.rowCount(), split.predict(table).rowCount());

        RecordedEvents piped = new RecordedEvents();
        TrainResult oneFOneB = train(table, BATCH, Strategy.pipeline(3, 4,
                PipelineSchedule.ONE_F_ONE_B), piped);
        assertSameTraining(whole, oneFOneB);
        PipelineMetrics p = piped.pipeline.get(piped.pipeline.size() - 1);
        assertEquals(3, p.stages().size());
        assertEquals(4, p.microbatches());
        assertTrue(p.activationBytes() > 0);
        assertTrue(p.bubbleFraction() > 0 && p.bubbleFraction() < 1, p.toString());

        // hybrid: 2 replicas of 2 stages = one replica on the interleaved rows, batch 2B
        RecordedEvents hr = new RecordedEvents();
        TrainResult hybrid = train(table, BATCH, Strategy.hybrid(2, 2, 2), hr, false);
        TrainResult concat = train(TrainLocalTest.interleaved(table, BATCH), 2 * BATCH,
                Strategy.data(), new RecordedEvents(), false);
        assertSameTraining(concat, hybrid);
        assertEquals(4, hybrid.workers().size());
        assertTrue(hr.steps.get(0).allReduceBytes() > 0, "the replicas averaged nothing");
        assertEquals(4, hr.steps.get(0).workers().size());
    }

    @Test
    @Tag("slow") // nine jobs: CI runs it (-Pslow)
    void eachStagedStrategyValidatesCheckpointsAndResumesOnTheCluster(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        for (Strategy strategy : List.of(Strategy.model(2),
                Strategy.pipeline(2, 4, PipelineSchedule.GPIPE), Strategy.hybrid(2, 2, 2))) {
            String name = strategy.toString().substring(0, 5);
            TrainResult straight = job(name + "-2", strategy, 2, dir.resolve(name + "-x"), false);
            // the first epoch alone, checkpointed at every step; then the second from its last
            Path ck = dir.resolve(name);
            TrainResult first = job(name, strategy, 1, ck, false);
            TrainResult resumed = job(name, strategy, 2, ck, true); // the same job, resumed
            assertEquals(first.globalSteps(), resumed.resumedFromStep(), name);
            assertEquals(straight.globalSteps(), resumed.globalSteps(), name);
            TrainLocalTest.assertClose(straight.parameters(), resumed.parameters(), 0, 0);
            EpochMetrics a = straight.epochs().get(1);
            EpochMetrics b = resumed.epochs().get(0);
            assertEquals(2, b.epoch(), name);
            assertTrue(Float.isFinite(b.validationLoss()), name + ": " + b);
            assertEquals(a.validationLoss(), b.validationLoss(), name);
            assertEquals(a.validationAccuracy(), b.validationAccuracy(), name);
        }
    }

    private static TrainResult job(String name, Strategy s, int epochs, Path checkpoints,
            boolean resume) {
        return Dml.start(TrainSpec.builder().setTable(table).setColumns(SyntheticFraud.selection())
                .setModel(model).optOptimizer(OptimizerSpec.adam(1e-2f)).optEpochs(epochs)
                .optBatchSize(BATCH).optCpusPerWorker(0).optStrategy(s)
                .optValidationFraction(0.25).optCheckpoints(checkpoints, 1)
                .optResume(resume).optName(name).build(), driver).await(WAIT);
    }
}
