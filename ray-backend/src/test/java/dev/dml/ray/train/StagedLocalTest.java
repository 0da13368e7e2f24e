package dev.dml.ray.train;

import static dev.dml.ray.train.TrainLocalTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.collective.WorkerInfo;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import io.ray.api.Ray;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Model, pipeline and hybrid parallelism with real {@link dev.dml.ray.pipeline.StageWorker}
 * actors in Ray's LOCAL mode, each against the unsplit model (data parallelism) on the same
 * seed and batches: same losses, same parameters.
 */
class StagedLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final ColumnSelection SEL = SyntheticFraud.selection();
    private static final int BATCH = 16;
    private static Table table;
    private static ModelSpec model;

    @BeforeAll
    static void startRay() throws IOException {
        System.setProperty("ray.run-mode", "LOCAL");
        Ray.init();
        table = SyntheticFraud.generate(2 * BATCH * 6, 5);
        model = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .addHidden(16).addHidden(8).optStandardize(FeatureStats.of(table, SEL))
                .optSeed(3).build();
    }

    @AfterAll
    static void stopRay() {
        Ray.shutdown();
        System.clearProperty("ray.run-mode");
    }

    private static TrainSpecBuilder spec(String name) {
        return TrainSpec.builder().setTable(table).setColumns(SEL).setModel(model)
                .optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).setEpochs(2).optBatchSize(BATCH)
                .optCpusPerWorker(0).optName(name);
    }

    private static TrainResult run(TrainSpec spec, FakeDriverContext ctx) {
        TrainResult r = spec.strategy() instanceof Strategy.Staged
                ? StagedCommand.of(spec, spec.name(), TIMEOUT).run(ctx)
                : TrainCommand.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        return r;
    }

    static void assertSameTraining(TrainResult expected, TrainResult actual) {
        assertEquals(expected.globalSteps(), actual.globalSteps());
        for (int i = 0; i < expected.steps().size(); i++) {
            assertEquals(expected.steps().get(i).loss(), actual.steps().get(i).loss(), 1e-5,
                    "loss of step " + (i + 1));
        }
        assertClose(expected.parameters(), actual.parameters(), 1e-4, 1e-6);
    }

    @Test
    void modelParallelInThreeStagesEqualsTheUnsplitModel() {
        TrainResult whole = run(spec("whole").build(), new FakeDriverContext());
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult split = run(spec("model").optStrategy(Strategy.model(3)).build(), ctx);
        assertSameTraining(whole, split);
        assertEquals(24, split.globalSteps()); // 192 rows / 16 per step, 2 epochs
        assertEquals(3, split.workers().size(), "one worker per stage");
        List<PipelineMetrics> pm = ctx.events(PipelineMetrics.class);
        assertEquals(24, pm.size());
        assertEquals(24, ctx.events(StepMetrics.class).size());
        assertEquals(2, ctx.events(EpochMetrics.class).size());
        PipelineMetrics p = pm.get(5);
        assertEquals(3, p.busyMillis().length);
        assertEquals(1, p.microbatches());
        // forward 16x16 and 16x8 floats and their gradients back, plus 20-byte headers
        assertEquals(2 * (4 * (16 * 16 + 16 * 8) + 2 * (4 + 16)), p.activationBytes());
        for (double b : p.busyMillis()) {
            assertTrue(b > 0, "a stage did no work");
        }
        assertTrue(p.bubbleFraction() > 0 && p.bubbleFraction() < 1, p.toString());
        assertEquals(3, split.steps().get(0).rssBytes().length);
        assertEquals(table.rowCount(), split.predict(table).rowCount());
    }

    @Test
    void explicitSplitAndTimeBalanceTrainTheSameModel() {
        TrainResult byParams = run(spec("params").optStrategy(
                Strategy.pipeline(2, 4, Strategy.Schedule.GPIPE)).build(),
                new FakeDriverContext());
        TrainResult explicit = run(spec("explicit").optStrategy(
                Strategy.modelLayers(1, 2)).build(), new FakeDriverContext());
        TrainResult byTime = run(spec("time").optStrategy(Strategy.pipeline(3, 2,
                Strategy.Schedule.ONE_F_ONE_B).withBalance(Strategy.Balance.TIME)).build(),
                new FakeDriverContext());
        assertSameTraining(explicit, byParams);
        assertSameTraining(explicit, byTime);
    }

    @Test
    void gpipeAndOneFOneBEqualTheUnsplitModelOnTheWholeBatch() {
        TrainResult whole = run(spec("whole-p").setEpochs(1).build(), new FakeDriverContext());
        for (Strategy.Schedule s : Strategy.Schedule.values()) {
            FakeDriverContext ctx = new FakeDriverContext();
            TrainResult piped = run(spec("pipe-" + s).setEpochs(1)
                    .optStrategy(Strategy.pipeline(3, 4, s)).build(), ctx);
            assertSameTraining(whole, piped);
            PipelineMetrics p = ctx.events(PipelineMetrics.class).get(2);
            assertEquals(4, p.microbatches());
            assertEquals(2.0 / 6, p.theoreticalBubble(), 1e-12);
            assertFalse(piped.stopped());
        }
    }

    @Test
    void hybridEqualsDataParallelOnTheSameShards() {
        FakeDriverContext dctx = new FakeDriverContext();
        TrainResult data = run(spec("dp").optWorkers(2).build(), dctx);
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult hybrid = run(spec("hybrid").optStrategy(Strategy.hybrid(2, 2, 2)).build(),
                ctx);
        assertSameTraining(data, hybrid);
        List<WorkerInfo> who = hybrid.workers();
        assertEquals(4, who.size());
        assertEquals(3, who.get(3).rank());
        StepMetrics s = ctx.events(StepMetrics.class).get(1);
        assertEquals(2 * BATCH, s.examples());
        assertTrue(s.allReduceBytes() > 0, "the stages' replicas averaged nothing");
        assertEquals(4, s.cpuPercent().length);
        PipelineMetrics p = ctx.events(PipelineMetrics.class).get(1);
        assertEquals(2, p.stages());
        assertTrue(p.allReduceMillis()[0] > 0);
    }
}
