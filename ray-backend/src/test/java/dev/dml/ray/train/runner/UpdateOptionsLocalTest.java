package dev.dml.ray.train.runner;

import dev.dml.options.PipelineSchedule;
import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.run;
import static dev.dml.ray.train.runner.TrainLocalTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.events.StepMetrics;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.LearningRateSchedule;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.RealTableJobs;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * {@code --lr-schedule}, {@code --warmup}, {@code --weight-decay} and {@code --clip-norm} in
 * real jobs in Ray's LOCAL mode: data parallelism with them equals one worker on the
 * concatenated batches, a pipeline with them equals the unsplit model, the learning rate of
 * each step is recorded, and what cannot work is refused in one line. On real tables: breast
 * cancer overfits and stops early, keeping its best epoch; penguins train with a warm-up and a
 * cosine decay to well above the majority class.
 */
@ExtendWith(LocalRayExtension.class)
class UpdateOptionsLocalTest {

    private static final ColumnSelection SEL = SyntheticFraud.selection();
    private static final int BATCH = 16;

    /** Every update option at once; the clip norm is small enough to clip most steps. */
    private static TrainSpecBuilder knobs(TrainSpecBuilder b, double clip) {
        b.optLrSchedule("cosine").optWarmup(3).optWeightDecay(0.01);
        return clip > 0 ? b.optClipNorm(clip) : b;
    }

    private static TrainSpecBuilder fraud(Table t, ModelSpec model, String name) {
        return TrainSpec.builder().setTable(t).setColumns(SEL).setModel(model)
                .optOptimizer(OptimizerSpec.sgd(0.05f, 0.9f)).optEpochs(2).optShuffle(false)
                .optCpusPerWorker(0).optReportEvery(2).optName(name);
    }

    @Test
    void twoClippingWorkersEqualOneWorkerOnTheConcatenatedBatches() {
        Table t = SyntheticFraud.generate(2 * BATCH * 8, 5);
        ModelSpec model = TrainLocalTest.mlp(t);
        TrainSpec two = knobs(fraud(t, model, "clip2"), 0.05).optBatchSize(BATCH)
                .optWorkers(2).build();
        TrainResult r2 = TrainLocalTest.run(two, new FakeDriverContext());
        TrainResult r1 = TrainLocalTest.run(knobs(fraud(TrainLocalTest.interleaved(t, BATCH),
                model, "clip1"), 0.05).optBatchSize(2 * BATCH).optWorkers(1).build(),
                new FakeDriverContext());
        assertEquals(16, r2.globalSteps());
        // the driver compares the ranks' parameter hashes after each call: the replicas stayed
        // equal, so each clipped the same all-reduced gradients
        assertClose(r1.parameters(), r2.parameters(), 1e-5, 1e-6);
        TrainResult unclipped = TrainLocalTest.run(knobs(fraud(t, model, "noclip"), 0)
                .optBatchSize(BATCH).optWorkers(2).build(), new FakeDriverContext());
        assertTrue(maxDifference(unclipped.parameters(), r2.parameters()) > 1e-3,
                "clipping changed nothing: the test's norm does not clip");

        OptimizerSpec opt = two.optimizer();
        assertEquals(0.01f, opt.weightDecay());
        assertEquals(0.05f, opt.clipNorm());
        assertEquals(new LearningRateSchedule.Warmup(3, new LearningRateSchedule.Cosine(3, 16)),
                opt.schedule());
        double[] lr = r2.metrics().doubleColumn("lr").asDoubleArray();
        assertEquals(16, lr.length);
        for (int i = 0; i < 16; i++) {
            assertEquals(opt.learningRateAt(i), r2.steps().get(i).learningRate(), 1e-9);
            assertEquals(opt.learningRateAt(i), lr[i], 1e-9);
        }
        assertEquals(0.05 / 3, lr[0], 1e-6, "warm-up starts at lr / warmup");
        assertEquals(0.05, lr[2], 1e-6, "warm-up ends at lr");
        assertTrue(lr[15] < 0.005 && lr[15] > 0, "cosine ends near 0: " + lr[15]);
    }

    @Test
    void aPipelineWithTheOptionsEqualsTheUnsplitModel() {
        Table t = SyntheticFraud.generate(2 * BATCH * 6, 5);
        ModelSpec model = TrainLocalTest.mlp(t, 3, 16, 8);
        TrainResult whole = TrainLocalTest.run(knobs(fraud(t, model, "whole"), 0)
                .optLrSchedule("step:1:0.5").optBatchSize(BATCH).build(),
                new FakeDriverContext());
        TrainResult piped = TrainLocalTest.run(knobs(fraud(t, model, "piped"), 0)
                .optLrSchedule("step:1:0.5").optBatchSize(BATCH)
                .optStrategy(Strategy.pipeline(3, 4, PipelineSchedule.ONE_F_ONE_B)).build(),
                new FakeDriverContext());
        StagedLocalTest.assertSameTraining(whole, piped);
        assertEquals(0.025, piped.steps().get(piped.steps().size() - 1).learningRate(), 1e-6,
                "the second epoch runs at half the rate");
    }

    @Test
    void whatCannotWorkIsRefusedInOneLine() {
        Table t = SyntheticFraud.generate(2 * BATCH * 6, 5);
        ModelSpec model = TrainLocalTest.mlp(t);
        DmlException early = assertThrows(DmlException.class, () -> fraud(t, model, "e")
                .optEarlyStop(2).build());
        assertTrue(early.whatTemplate().startsWith("{early-stop} watches the validation loss"),
                early.what());
        DmlException staged = assertThrows(DmlException.class, () -> fraud(t, model, "s")
                .optClipNorm(1).optStrategy(Strategy.model(2)).build());
        assertTrue(staged.whatTemplate().startsWith("{clip-norm} clips the global norm"),
                staged.what());
        assertMessage("{warmup} must be a whole number of at least 0, got -1",
                () -> fraud(t, model, "w").optWarmup(-1));
        assertMessage("{lr-schedule} must be constant, cosine, or step:EVERY:GAMMA",
                () -> fraud(t, model, "l").optLrSchedule("step:0:0.5"));
        assertMessage("{lr-schedule} must be", () -> fraud(t, model, "l").optLrSchedule("linear"));
        assertMessage("{weight-decay} must be a number of at least 0",
                () -> fraud(t, model, "d").optWeightDecay(-0.1));
        assertMessage("{clip-norm} must be a number above 0", () -> fraud(t, model, "c")
                .optClipNorm(0));
        assertMessage("{early-stop} must be a whole number of at least 1",
                () -> fraud(t, model, "p").optEarlyStop(0));
        // a warm-up longer than the job trains, and says so
        TrainSpec longWarmup = fraud(t, model, "long").optBatchSize(BATCH).optWarmup(500)
                .build();
        assertTrue(longWarmup.notices().get(0).startsWith("{warmup=500} is longer than the"
                + " job's 24 steps"), longWarmup.notices().toString());
        FakeDriverContext ctx = new FakeDriverContext();
        assertEquals(2, TrainLocalTest.run(longWarmup.probe(1, 2), ctx).globalSteps(),
                "the probe of a plan runs");
        assertTrue(ctx.events(JobNotice.class).get(0).template().startsWith("{warmup=500}"));
    }

    @Test
    void theProbeOfAPlanKeepsTheUpdateOptionsAndDropsEarlyStopping() {
        Table t = SyntheticFraud.generate(2 * BATCH * 6, 5);
        TrainSpec spec = knobs(fraud(t, TrainLocalTest.mlp(t), "p"), 1).optEarlyStop(2)
                .optValidationFraction(0.2).optBatchSize(BATCH).build();
        TrainSpec probe = spec.probe(2, 3);
        assertEquals(null, probe.get(TrainOptions.EARLY_STOP));
        assertEquals(1.0, probe.get(TrainOptions.CLIP_NORM));
        assertEquals("cosine", probe.get(TrainOptions.LR_SCHEDULE).toString());
        TrainResult r = TrainLocalTest.run(probe, new FakeDriverContext());
        assertEquals(3, r.globalSteps());
        assertEquals(0, r.stoppedEarlyAfter());
    }

    @Test
    void anOptimizerSetWholeKeepsItsOwnSettingsUnlessAnOptionOverridesThem() {
        Table t = SyntheticFraud.generate(2 * BATCH * 6, 5);
        LearningRateSchedule own = new LearningRateSchedule.StepDecay(1, 0.1, 12);
        OptimizerSpec given = OptimizerSpec.adam(0.01f).withSchedule(own).withClipNorm(2f);
        TrainSpec kept = fraud(t, TrainLocalTest.mlp(t), "own").optOptimizer(given)
                .optBatchSize(BATCH).build();
        assertEquals(given, kept.optimizer());
        TrainSpec overridden = fraud(t, TrainLocalTest.mlp(t), "over").optOptimizer(given)
                .optBatchSize(BATCH).optLrSchedule("cosine").optWeightDecay(0.1).build();
        assertEquals(new LearningRateSchedule.Cosine(0, 24), overridden.optimizer().schedule());
        assertEquals(0.1f, overridden.optimizer().weightDecay());
        assertEquals(2f, overridden.optimizer().clipNorm());
        DmlException staged = assertThrows(DmlException.class, () -> fraud(t,
                TrainLocalTest.mlp(t), "s").optOptimizer(given).optBatchSize(BATCH)
                .optStrategy(Strategy.model(2)).build());
        assertTrue(staged.whatTemplate().startsWith("{clip-norm}"), staged.what());
    }

    @Test
    void breastCancerStopsEarlyAndKeepsItsBestEpoch() {
        TrainSpec spec = RealTableJobs.overfitting(1).build();
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), java.time.Duration.ofMinutes(2))
                .run(ctx);
        RealTableJobs.assertStoppedAtTheBest(spec, r);
        String said = ctx.events(dev.dml.events.JobNotice.class).get(0).template();
        assertTrue(said.startsWith("{early-stop}: the validation loss has not improved for 3"
                + " epochs; stopped after epoch " + r.stoppedEarlyAfter()), said);
    }

    @Test
    void penguinsWithWarmupAndCosineBeatTheMajorityClassByFar() {
        Table t = RealTables.penguins().dropRowsWithMissingValues();
        Table test = t.where(RealTableJobs.everyFourth(t));
        Table train = t.dropWhere(RealTableJobs.everyFourth(t));
        TrainResult r = run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allNumericExcept(t, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(15).optBatchSize(16)
                .optWorkers(2).optLearningRate(0.02f).optLrSchedule("cosine").optWarmup(10)
                .optCpusPerWorker(0).optName("penguins").build());
        StringColumn truth = test.stringColumn("species");
        double acc = accuracy(r.predict(test).stringColumn("predicted"), truth);
        double majority = 0;
        for (String s : truth.unique()) {
            majority = Math.max(majority, (double) truth.isEqualTo(s).size() / truth.size());
        }
        System.out.printf("penguins, warm-up + cosine: held-out accuracy %.3f, majority %.3f%n",
                acc, majority);
        assertTrue(acc >= 0.9 && acc > majority + 0.4, "accuracy " + acc);
        double[] lr = r.metrics().doubleColumn("lr").asDoubleArray();
        assertTrue(lr[0] < 0.003 && lr[lr.length - 1] < 0.001, "warm-up and decay: "
                + lr[0] + ", " + lr[lr.length - 1]);
    }

    @Test
    void aResumedJobContinuesTheScheduleWhereItWas(@TempDir Path dir) {
        Table t = SyntheticFraud.generate(600, 9);
        TrainSpecBuilder base = knobs(TrainSpec.builder().setTable(t).setColumns(SEL)
                .setModel(TrainLocalTest.mlp(t)).optOptimizer(OptimizerSpec.adam(5e-3f))
                .optEpochs(3).optBatchSize(32).optWorkers(2).optCpusPerWorker(0)
                .optReportEvery(2), 0.5);
        TrainResult whole = TrainLocalTest.run(base.optName("whole").build(),
                new FakeDriverContext());
        base.optCheckpoints(dir, 5).optName("cut");
        FakeDriverContext[] ctx = new FakeDriverContext[1];
        ctx[0] = new FakeDriverContext(e -> {
            if (e instanceof StepMetrics m && m.step() == 12) {
                ctx[0].lookup("dml-train/cut", JobControl.class).requestStop();
            }
        });
        assertTrue(TrainLocalTest.run(base.build(), ctx[0]).stopped());
        TrainResult resumed = TrainLocalTest.run(base.optResume(true).build(),
                new FakeDriverContext());
        assertEquals(10, resumed.resumedFromStep());
        assertEquals(whole.steps().get(10).learningRate(), resumed.steps().get(0).learningRate());
        // warm-up, cosine, decay and clipping all resume exactly: the same parameters, bitwise
        assertClose(whole.parameters(), resumed.parameters(), 0, 0);
    }

    private static void assertMessage(String start, Runnable setting) {
        DmlException e = assertThrows(DmlException.class, setting::run);
        assertTrue(e.whatTemplate().startsWith(start), e.whatTemplate());
    }

    private static double maxDifference(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) {
            d = Math.max(d, Math.abs(a[i] - b[i]));
        }
        return d;
    }
}
