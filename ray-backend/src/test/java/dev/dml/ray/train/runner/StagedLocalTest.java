package dev.dml.ray.train.runner;

import dev.dml.options.TransportKind;
import dev.dml.options.StageBalance;
import dev.dml.options.PipelineSchedule;
import static dev.dml.ray.train.runner.TrainLocalTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.PipelineMetrics;
import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.worker.TrainWorker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * Model, pipeline and hybrid parallelism with real {@link TrainWorker} actors in Ray's LOCAL
 * mode, each against the unsplit model (data parallelism) on the same seed and batches: same
 * losses, same parameters, same validation scores, and a resumed job equals an uninterrupted
 * one.
 */
@ExtendWith(LocalRayExtension.class)
public class StagedLocalTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final ColumnSelection SEL = SyntheticFraud.selection();
    private static final int BATCH = 16;
    /** One of each kind of staged strategy. */
    private static final List<Strategy> STAGED = List.of(Strategy.model(3),
            Strategy.pipeline(2, 4, PipelineSchedule.ONE_F_ONE_B), Strategy.hybrid(2, 2, 2));
    private static Table table;
    private static ModelSpec model;

    @BeforeAll
    static void makeTheTable() {
        table = SyntheticFraud.generate(2 * BATCH * 6, 5);
        model = TrainLocalTest.mlp(table, 3, 16, 8);
    }

    private static TrainSpecBuilder spec(String name) {
        return TrainSpec.builder().setTable(table).setColumns(SEL).setModel(model)
                .optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).optEpochs(2).optBatchSize(BATCH)
                .optCpusPerWorker(0).optName(name);
    }

    private static TrainResult run(TrainSpec spec, FakeDriverContext ctx) {
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources: " + ctx.resources.keySet());
        return r;
    }

    public static void assertSameTraining(TrainResult expected, TrainResult actual) {
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
        assertEquals(3, p.stages().size());
        assertEquals(1, p.microbatches());
        // forward 16x16 and 16x8 floats and their gradients back, plus 20-byte headers
        assertEquals(2 * (4 * (16 * 16 + 16 * 8) + 2 * (4 + 16)), p.activationBytes());
        for (PipelineMetrics.StageTime st : p.stages()) {
            assertTrue(st.busyMillis() > 0, "a stage did no work");
        }
        assertTrue(p.bubbleFraction() > 0 && p.bubbleFraction() < 1, p.toString());
        assertEquals(3, split.steps().get(0).workers().size());
        assertEquals(table.rowCount(), split.predict(table).rowCount());
    }

    @Test
    void explicitSplitAndTimeBalanceTrainTheSameModel() {
        TrainResult byParams = run(spec("params").optStrategy(
                Strategy.pipeline(2, 4, PipelineSchedule.GPIPE)).build(),
                new FakeDriverContext());
        TrainResult explicit = run(spec("explicit").optStrategy(
                Strategy.modelLayers(1, 2)).build(), new FakeDriverContext());
        TrainResult byTime = run(spec("time").optStrategy(Strategy.pipeline(3, 2,
                PipelineSchedule.ONE_F_ONE_B).withBalance(StageBalance.TIME)).build(),
                new FakeDriverContext());
        assertSameTraining(explicit, byParams);
        assertSameTraining(explicit, byTime);
    }

    @Test
    void gpipeAndOneFOneBEqualTheUnsplitModelOnTheWholeBatch() {
        TrainResult whole = run(spec("whole-p").optEpochs(1).build(), new FakeDriverContext());
        for (PipelineSchedule s : PipelineSchedule.values()) {
            FakeDriverContext ctx = new FakeDriverContext();
            TrainResult piped = run(spec("pipe-" + s).optEpochs(1)
                    .optStrategy(Strategy.pipeline(3, 4, s)).build(), ctx);
            assertSameTraining(whole, piped);
            PipelineMetrics p = ctx.events(PipelineMetrics.class).get(2);
            assertEquals(4, p.microbatches());
            assertEquals(2.0 / 6, p.theoreticalBubble(), 1e-12);
            assertFalse(piped.stopped());
            for (WorkerInfo w : piped.workers()) {
                assertTrue(w.transport().endsWith("stage hand-offs tcp"), w.transport());
            }
        }
    }

    /**
     * The stages hand micro-batches to each other over direct links by default, and through
     * Ray's object references with {@code --transport ray}: the same training either way, and
     * the metrics say which.
     */
    @Test
    void directHandOffsTrainLikeObjectReferences() {
        Strategy strategy = Strategy.hybrid(2, 3, 2);
        TrainResult direct = run(spec("h-tcp").optStrategy(strategy).build(),
                new FakeDriverContext());
        TrainResult byRay = run(spec("h-ray").optStrategy(strategy)
                .opt(TrainOptions.TRANSPORT, TransportKind.RAY).build(), new FakeDriverContext());
        assertSameTraining(byRay, direct);
        assertTrue(direct.workers().stream().allMatch(w -> w.transport().equals(
                "tcp; stage hand-offs tcp")), direct.workers().toString());
        assertTrue(byRay.workers().stream().allMatch(w -> w.transport().equals(
                "ray; stage hand-offs ray")), byRay.workers().toString());
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
        assertEquals(4, s.workers().size());
        PipelineMetrics p = ctx.events(PipelineMetrics.class).get(1);
        assertEquals(2, p.stages().size());
        assertTrue(p.stages().get(0).allReduceMillis() > 0);
    }

    @Test
    void stagedJobsValidateLikeTheUnsplitModel() {
        TrainResult whole = run(spec("v-whole").optValidationFraction(0.25).build(),
                new FakeDriverContext());
        TrainResult twoWorkers = run(spec("v-dp").optValidationFraction(0.25).optWorkers(2)
                .build(), new FakeDriverContext());
        for (Strategy strategy : STAGED) {
            TrainResult staged = run(spec("v-" + strategy.toString().substring(0, 5))
                    .optValidationFraction(0.25).optStrategy(strategy).build(),
                    new FakeDriverContext());
            boolean hybrid = ((Strategy.Staged) strategy).replicas() > 1;
            TrainResult same = hybrid ? twoWorkers : whole;
            assertSameTraining(same, staged);
            assertEquals(2, staged.epochs().size());
            for (int e = 0; e < 2; e++) {
                EpochMetrics a = same.epochs().get(e);
                EpochMetrics b = staged.epochs().get(e);
                assertTrue(Float.isFinite(b.validationLoss()), strategy + ": " + b);
                assertEquals(a.validationLoss(), b.validationLoss(), 1e-5, strategy.toString());
                assertEquals(a.validationAccuracy(), b.validationAccuracy(), 1e-9);
                assertEquals(a.validationAuc(), b.validationAuc(), 1e-6);
            }
        }
    }

    @Test
    void aStagedJobResumedFromACheckpointEqualsAnUninterruptedOne(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        for (Strategy strategy : STAGED) {
            String name = strategy.toString().substring(0, 5);
            TrainResult whole = run(spec(name + "-whole").optStrategy(strategy).build(),
                    new FakeDriverContext());
            // a call of one step at a time, so that the stop lands right after step 7
            TrainSpecBuilder b = spec(name + "-crash").optStrategy(strategy)
                    .optCheckpoints(dir.resolve(name), 4).optReportEvery(1);
            FakeDriverContext[] ctx = new FakeDriverContext[1];
            ctx[0] = new FakeDriverContext(e -> {
                if (e instanceof StepMetrics m && m.step() == 7) {
                    ctx[0].lookup("dml-train/" + name + "-crash", JobControl.class)
                            .requestStop();
                }
            });
            TrainResult crashed = run(b.build(), ctx[0]);
            assertTrue(crashed.stopped(), name);
            assertEquals(7, crashed.globalSteps(), name);
            TrainResult resumed = run(b.optResume(true).build(), new FakeDriverContext());
            assertEquals(4, resumed.resumedFromStep(), name);
            assertEquals(whole.globalSteps(), resumed.globalSteps(), name);
            assertClose(whole.parameters(), resumed.parameters(), 0, 0);
            assertEquals(whole.finalLoss(), resumed.finalLoss(), name);
        }
    }
}
