package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.magics.RunViews;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.runs.RunRecorder;
import dev.dml.ray.runs.RunStore;
import dev.dml.ray.train.TrainSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code %dml runs} and {@code %dml compare} over a run store with two recorded runs: the
 * filter, the newest N, the overlaid curves, the settings that differ, and each bad input
 * answered with what was wrong and how to fix it, in the cell's words.
 */
class RecordedRunsTest {

    @TempDir
    Path store;
    private RecordedRuns runs;
    private String slow;
    private String fast;

    @BeforeEach
    void recordTwoRuns() throws InterruptedException {
        slow = record(1e-3f, 0.80);
        Thread.sleep(5); // a later start: newest first
        fast = record(1e-2f, 0.95);
        runs = new RecordedRuns(store);
    }

    /** A run of two epochs of three steps, at a learning rate, reaching an accuracy. */
    private String record(float lr, double accuracy) {
        Table t = SyntheticFraud.generate(64, 1);
        t.setName("fraud");
        TrainSpec spec = TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.mlp(SyntheticFraud.FEATURES + 1, 2, 8))
                .optOptimizer(OptimizerSpec.adam(lr)).optEpochs(2).optName("fraud").build();
        try (RunStore s = RunStore.open(store)) {
            RunRecorder run = RunRecorder.start(s, spec);
            for (int e = 1; e <= 2; e++) {
                for (long step = 3L * e - 2; step <= 3L * e; step++) {
                    run.onStep(new StepMetrics(e, step, 1f / (step * lr * 1000), 32, 100, 1, 0,
                            0, 0, List.of(), System.currentTimeMillis()));
                }
                run.onEpoch(new EpochMetrics(e, 3, 3, 0.5f / e, 1.0, 96, 0.6f / e,
                        accuracy - 0.1 / e, Double.NaN));
            }
            run.onFailed(new DmlException("stopped by the test", "none")); // ends the record
            return run.runId();
        }
    }

    @Test
    void runsListsNewestFirstFilteredAndCut() {
        RunViews.RunList all = runs.list(null, 0);
        assertEquals(2, all.total());
        assertEquals(List.of(fast, slow), all.rows().stream().map(r -> r.get(0)).toList());
        int lr = all.header().indexOf("lr");
        assertEquals("0.01", all.rows().get(0).get(lr));
        assertEquals("0.9000", all.rows().get(0).get(all.header().indexOf("val_accuracy")));

        assertEquals(List.of(fast), ids(runs.list("'val_accuracy > 0.8'", 0)));
        assertEquals(List.of(slow), ids(runs.list("lr < 0.005 and status = failed", 0)));
        assertEquals(List.of(fast, slow), ids(runs.list("max_failures = 3", 0)));
        assertEquals(List.of(fast), ids(runs.list(null, 1)));
        assertEquals(List.of(), ids(runs.list("val_accuracy > 0.99", 0)));
    }

    private static List<String> ids(RunViews.RunList list) {
        return list.rows().stream().map(r -> r.get(0)).toList();
    }

    @Test
    void aBadWhereSaysWhatIsWrongAndHowToWriteIt() {
        DmlException unknown = assertThrows(DmlException.class,
                () -> runs.list("'val_acuracy > 0.9'", 0));
        assertEquals("--where 'val_acuracy > 0.9': no column 'val_acuracy' in the runs.",
                unknown.what());
        assertTrue(unknown.hint().startsWith("Did you mean 'val_accuracy'? Columns: id,"),
                unknown.hint());
        DmlException shape = assertThrows(DmlException.class,
                () -> runs.list("val_accuracy high", 0));
        assertEquals("--where 'val_accuracy high': 'val_accuracy high' is not COLUMN OP VALUE.",
                shape.what());
        assertTrue(shape.hint().startsWith("Operators: > >= < <= = !="), shape.hint());
        DmlException text = assertThrows(DmlException.class,
                () -> runs.list("status > done", 0));
        assertTrue(text.what().contains("'>' compares numbers, and 'done' is not one"),
                text.what());
    }

    @Test
    void compareOverlaysTheCurvesAndShowsTheSettingsThatDiffer() {
        RunViews.Comparison byStep = runs.compare(List.of(slow, fast), "loss");
        assertEquals("step", byStep.xLabel());
        assertArrayEquals(new double[] {1, 2, 3, 4, 5, 6}, byStep.curves().get(0).x());
        assertEquals(1f / (1 * 1e-3f * 1000), byStep.curves().get(0).y()[0], 1e-6);

        RunViews.Comparison c = runs.compare(List.of(slow, fast), "val_accuracy");
        assertEquals("epoch", c.xLabel());
        assertEquals(List.of(slow, fast), c.curves().stream().map(RunViews.Curve::runId)
                .toList());
        assertArrayEquals(new double[] {0.70, 0.75}, c.curves().get(0).y(), 1e-6);
        assertEquals(List.of("setting", slow, fast), c.header());
        assertEquals(List.of(List.of("lr", "0.001", "0.01")), c.differing());
    }

    @Test
    void anUnknownRunOrMetricNamesTheClosest() {
        String typo = fast.substring(0, fast.length() - 1) + "x";
        DmlException run = assertThrows(DmlException.class,
                () -> runs.compare(List.of(slow, typo), "loss"));
        assertEquals("No run '" + typo + "' in the run store " + store + ".", run.what());
        assertEquals("Did you mean '" + fast + "'? Take an id from %dml runs.", run.hint());
        DmlException metric = assertThrows(DmlException.class,
                () -> runs.compare(List.of(slow), "val_los"));
        assertEquals("--metric 'val_los' is no metric dml records.", metric.what());
        assertTrue(metric.hint().startsWith("Did you mean 'val_loss'?"), metric.hint());
    }
}
