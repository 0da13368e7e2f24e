package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.Dml;
import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.settings.Strategy;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/** The spec's builder: required values, bad values, table validation, model resolution. */
class TrainSpecTest {

    private static final Table FRAUD = SyntheticFraud.generate(1000, 1);

    @Test
    void buildNamesEveryMissingRequiredValue() {
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder().build());
        assertEquals("The training spec is missing setTable, setColumns.", e.what());
        assertEquals("Call setTable(...), setColumns(...) on TrainSpec.builder() before build().",
                e.hint());
    }

    @Test
    void settersRejectBadValuesAtOnce() {
        TrainSpecBuilder b = TrainSpec.builder();
        assertEquals("optWorkers must be a whole number of at least 1, or a range of them such as"
                + " 2:4, got 0.",
                assertThrows(DmlException.class, () -> b.optWorkers(0)).what());
        assertEquals("For example optWorkers(2): worker actors, each its own JVM; MIN:MAX"
                + " grows and shrinks with the cluster (data parallelism), every step still"
                + " training MAX batches at the same learning rate.",
                assertThrows(DmlException.class, () -> b.optWorkers(0)).hint());
        assertEquals("optLearningRate must be a number above 0, got 0.0.",
                assertThrows(DmlException.class, () -> b.optLearningRate(0)).what());
        assertEquals("optBatchSize must be a whole number of at least 1, got 0.",
                assertThrows(DmlException.class, () -> b.optBatchSize(0)).what());
        assertEquals("optEpochs must be a whole number of at least 1, got -1.",
                assertThrows(DmlException.class, () -> b.optEpochs(-1)).what());
        assertEquals("optGpusPerWorker must be a number of at least 0, got -1.0.",
                assertThrows(DmlException.class, () -> b.optGpusPerWorker(-1)).what());
        assertEquals("optValidationFraction must be a fraction in [0, 1), got 1.0.",
                assertThrows(DmlException.class, () -> b.optValidationFraction(1)).what());
        assertEquals("--into is resolved by the notebook, not by the training spec.",
                assertThrows(DmlException.class, () -> b.opt(TrainOptions.INTO, "m")).what());
        assertThrows(DmlException.class, () -> b.optCheckpoints(Path.of("/tmp/x"), 0));
    }

    @Test
    void anUnknownColumnFailsAtBuildBeforeAnythingStarts() {
        ColumnSelection sel = ColumnSelection.builder().addFeature("v1").addFeature("nope")
                .setLabel(SyntheticFraud.LABEL, LabelKind.CLASSES).build();
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder()
                .setTable(FRAUD).setColumns(sel).setModel(ModelSpec.Family.MLP, 8).optEpochs(1)
                .build());
        assertTrue(e.what().contains("nope"), e.getMessage());
        assertTrue(!e.hint().isEmpty());
    }

    @Test
    void aFamilyModelIsResolvedFromTheTableAndRowsAreSplit() {
        TrainSpec s = TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 8, 4).optEpochs(1).optWorkers(3)
                .optBatchSize(50).optValidationFraction(0.25).build();
        assertEquals(31, s.model().inputs());
        assertEquals(2, s.model().outputs());
        assertEquals(750, s.trainTable().rowCount());
        assertEquals(250, s.validationTable().orElseThrow().rowCount());
        assertEquals(5, s.stepsPerEpoch()); // 250 rows per worker / 50
    }

    @Test
    void aFamilyWithoutSizesGetsItsDefaultLayersNotAnEarlierCallsSizes() {
        TrainSpecBuilder b = TrainSpec.builder().setTable(FRAUD)
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 1024, 1024)
                .optEpochs(1);
        assertArrayEquals(new int[] {1024, 1024}, b.build().model().hidden());
        int[] defaults = TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP).optEpochs(1).build().model().hidden();
        assertArrayEquals(defaults, b.setModel(ModelSpec.Family.MLP).build().model().hidden());
        assertArrayEquals(new int[] {16},
                b.setModel(ModelSpec.Family.MLP, 16).build().model().hidden());
    }

    @Test
    void aBatchLargerThanAShardShrinksToTheShardAndSaysSo() {
        TrainSpec s = TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 8).optEpochs(1).optWorkers(4).optBatchSize(300)
                .build();
        assertEquals(250, s.batchSize());
        assertEquals(1, s.stepsPerEpoch());
        assertEquals(List.of("Each of the 4 workers gets 250 training rows, fewer than the batch"
                + " size 300: it trains with batches of 250 rows. Set {batch-size} to 250 or"
                + " less to keep this message away."), s.notices());
        TrainSpec staged = TrainSpec.builder().setTable(FRAUD.inRange(0, 30))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8, 8)
                .optStrategy(Strategy.pipeline(2, 4, PipelineSchedule.GPIPE))
                .optBatchSize(64).build();
        assertEquals(28, staged.batchSize(), "a multiple of the 4 micro-batches");
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder()
                .setTable(FRAUD.inRange(0, 3)).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 8).optWorkers(4).build());
        assertEquals("Each of the 4 workers gets 0 training rows, fewer than the batch size 64.",
                e.what());
        assertEquals("Lower optWorkers, or train on more rows.", e.hint());
        assertTrue(TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 8).build().notices().isEmpty());
    }

    @Test
    void anUnreachableClusterFailsFastBeforeAnyProcessStarts() {
        TrainSpec spec = TrainSpec.builder().setTable(FRAUD)
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8)
                .optEpochs(1).optClusterAddress("127.0.0.1:1").build();
        long t0 = System.nanoTime();
        DmlException e = assertThrows(DmlException.class, () -> Dml.train(spec));
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "took too long");
        assertTrue(e.what().contains("127.0.0.1:1"), e.getMessage());
        assertTrue(!e.hint().isEmpty());
    }

    @Test
    void resumeNeedsACheckpointFolder() {
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder()
                .setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 8).optEpochs(1).optResume(true).build());
        assertEquals("optResume needs optCheckpoints.", e.what());
        assertEquals("Add optCheckpoints: the folder for the checkpoints.", e.hint());
    }

    @Test
    void stepsPerEpochCapsAnEpochAndAProbeIsTheJobCutShort() {
        TrainSpecBuilder b = TrainSpec.builder().setTable(FRAUD)
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8)
                .optBatchSize(10).optEpochs(3).optWorkers(2)
                .optCheckpoints(Path.of("checkpoints"), 5).opt(TrainOptions.BUDGET, 1.0);
        TrainSpec full = b.build();
        assertEquals(1000 / 2 / 10, full.stepsPerEpoch()); // no validation split by default
        assertEquals(7, b.opt(TrainOptions.STEPS_PER_EPOCH, 7).build().stepsPerEpoch());
        assertEquals(50, b.opt(TrainOptions.STEPS_PER_EPOCH, 900).build().stepsPerEpoch());
        TrainSpec probe = full.probe(1, 12);
        assertEquals(12, probe.stepsPerEpoch());
        assertEquals(1, probe.epochs());
        assertEquals(1, probe.workers());
        assertTrue(probe.checkpointDir().isEmpty());
        assertEquals(null, probe.get(TrainOptions.BUDGET));
        assertEquals(full.reportEvery(), probe.reportEvery()); // calls as the job's
        // the spec it came from is untouched, and a variant from its builder keeps the rest
        assertEquals(3, full.epochs());
        assertEquals(25, full.toBuilder().optWorkers(4).build().stepsPerEpoch());
    }
}
