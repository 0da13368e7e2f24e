package dev.dml.ray.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.tune.Trial;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@code Dml.tune} refuses bad input in Java words ({@code optConcurrent}, never {@code
 * --concurrent}) before anything starts, and draws its trials as {@code %dml tune} does.
 */
class TunerTest {

    private static TrainSpecBuilder base() {
        return TrainSpec.builder().setTable(SyntheticFraud.generate(400, 3))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8)
                .optEpochs(4).optValidationFraction(0.2);
    }

    /** The message; its first line (what was wrong) in Java words. */
    private static String failure(Executable call) {
        String m = assertThrows(DmlException.class, call).getMessage();
        assertFalse(m.lines().findFirst().orElseThrow().contains("--"),
                "notebook words in a Java message: " + m);
        return m;
    }

    @Test
    void badSweepSettingsAreRefusedInJavaWords() {
        assertEquals("optConcurrent must be a whole number of at least 1, got 0.",
                failure(() -> Dml.tune(base().build()).optConcurrent(0)).lines().findFirst()
                        .orElseThrow());
        assertTrue(failure(() -> Dml.tune(base().build()).optSearch("grdi")).startsWith(
                "optSearch must be "));
        assertEquals("Dml.tune: TrainOptions.LR '1e-2..1e-4': the range's low end is not below"
                + " its high end.\nWrite LOW..HIGH, e.g. optSpace(TrainOptions.LR,"
                + " \"1e-4..1e-2\").",
                failure(() -> Dml.tune(base().build()).optSpace(TrainOptions.LR, "1e-2..1e-4")));
        assertTrue(failure(() -> Dml.tune(base().build()).optSpace(TrainOptions.LR, "1e-3|1e-2")
                .optSpace(TrainOptions.LR, "1e-4|1e-3")).startsWith(
                        "Dml.tune has two spaces for TrainOptions.LR."));
        assertTrue(failure(() -> Dml.tune(base().build()).optDeadline(Duration.ZERO))
                .startsWith("Dml.tune: optDeadline must be above 0"));
        assertTrue(failure(() -> Dml.tune(base().build()).optBudget(-1))
                .startsWith("Dml.tune: optBudget must be above 0"));
    }

    @Test
    void aSweepThatCannotRunIsRefusedAtBuild() {
        assertEquals("Dml.tune: no option varies, so there is nothing to search.",
                failure(() -> Dml.tune(base().build()).build()).lines().findFirst()
                        .orElseThrow());
        assertEquals("Dml.tune: the grid has 2 configurations, and optTrials(12) asks for 12.",
                failure(() -> Dml.tune(base().build()).optSpace(TrainOptions.LR, "1e-3|1e-2")
                        .optTrials(12).build()).lines().findFirst().orElseThrow());
        TrainSpec unvalidated = base().optValidationFraction(0).build();
        assertEquals("Dml.tune ranks trials by optMetric(val_accuracy), which needs validation"
                + " rows.\nAdd optValidationFraction(0.2), or rank by optMetric(train_loss).",
                failure(() -> Dml.tune(unvalidated).optSpace(TrainOptions.LR, "1e-3|1e-2")
                        .optMetric("val_accuracy").build()));
        assertTrue(failure(() -> Dml.tune(base().optEpochs(1).build())
                .optSpace(TrainOptions.LR, "1e-3|1e-2").optAsha(1, 3).build())
                .startsWith("optScheduler(asha) has no rung to stop a trial at"));
        TrainSpec whole = base().setModel(ModelSpec.mlp(SyntheticFraud.FEATURES + 1, 2, 8))
                .build();
        assertTrue(failure(() -> Dml.tune(whole).optSpace(TrainOptions.HIDDEN, "8|16").build())
                .startsWith("Dml.tune varies TrainOptions.HIDDEN, but the base spec sets its"
                        + " model whole"));
        assertEquals("optSearch(grid) cannot enumerate the range optSpace(TrainOptions.LR,"
                + " \"0.00100..0.100\").", failure(() -> Dml.tune(base().build())
                        .optSpace(TrainOptions.LR, "1e-3..1e-1").optSearch("grid").build())
                        .lines().findFirst().orElseThrow());
        assertTrue(failure(() -> Dml.tune(base().build()).optSpace(TrainOptions.LABEL, "a|b"))
                .startsWith("Dml.tune: TrainOptions.LABEL is the same for every trial"));
    }

    @Test
    void trialsAreTheSpaceOverTheBaseSpecWithTheSweepId() {
        Tuner grid = Dml.tune(base().optCheckpoints(Path.of("target/ckpt"), 50).build())
                .optSpace(TrainOptions.LR, "1e-3|1e-2").optSpace(TrainOptions.HIDDEN, "8|16,16|32")
                .build();
        List<Trial> trials = grid.trials();
        assertEquals(6, trials.size());
        assertEquals("lr=0.00100 hidden=8", trials.get(0).settings());
        assertEquals(6, new HashSet<>(trials.stream().map(t -> t.options().get(
                TrainOptions.CHECKPOINT_DIR)).toList()).size(), "one checkpoint folder each");
        for (Trial t : trials) {
            assertEquals(grid.id(), t.options().get(TuneOptions.SWEEP));
            assertEquals(4, t.options().get(TrainOptions.EPOCHS));
        }
        Tuner random = Dml.tune(base().build()).optSpace(TrainOptions.LR, "1e-4..1e-1:log")
                .optTrials(5).build();
        assertEquals(5, random.trials().size());
        for (Trial t : random.trials()) {
            double lr = t.options().get(TrainOptions.LR);
            assertTrue(lr >= 1e-4 && lr <= 1e-1, t.settings());
        }
    }
}
