package dev.dml.ray.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.SearchKind;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code optX} setters derived from the declarations' Java words: each one a declaration
 * names exists on its builder and sets that option, and the tuner's {@code opt} takes only the
 * sweep's own options.
 */
class DeclaredSettersTest {

    private static TrainSpecBuilder base() {
        return TrainSpec.builder().setTable(SyntheticFraud.generate(400, 3))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8);
    }

    @Test
    void everySetterTheDeclarationsNameExistsOnItsBuilder() {
        requireSetters(TrainOptions.ALL, TrainSpecBuilder.class);
        requireSetters(TuneOptions.ALL, Tuner.Builder.class);
    }

    private static void requireSetters(List<Option<?>> options, Class<?> builder) {
        for (Option<?> o : options) {
            String setter = o.javaTerm();
            if (!setter.matches("opt[A-Z][A-Za-z0-9]*")) {
                continue;
            }
            Method m = List.of(builder.getMethods()).stream()
                    .filter(x -> x.getName().equals(setter)).findFirst()
                    .orElseThrow(() -> new AssertionError(builder.getSimpleName() + " has no "
                            + setter + ", which " + o.flag() + " names"));
            assertEquals(builder, m.getReturnType(), setter + " returns its builder");
        }
    }

    @Test
    void theDerivedSettersSetTheirOptions() {
        TrainSpec s = base().optWorkers(2).optEpochs(3).optBatchSize(32).optSeed(7L)
                .optWeightDecay(0.01).optShuffle(false).optCompress("fp16")
                .optLrSchedule("cosine").build();
        assertEquals(3, s.get(TrainOptions.EPOCHS));
        assertEquals(32, s.get(TrainOptions.BATCH_SIZE));
        assertEquals(7L, s.get(TrainOptions.SEED));
        assertEquals(0.01, s.get(TrainOptions.WEIGHT_DECAY));
        assertEquals(false, s.get(TrainOptions.SHUFFLE));
        assertEquals(TrainOptions.COMPRESS.parse("fp16"), s.get(TrainOptions.COMPRESS));
        assertEquals(TrainOptions.LR_SCHEDULE.parse("cosine"), s.get(TrainOptions.LR_SCHEDULE));
    }

    @Test
    void theTunersOptTakesOnlyTheSweepsOptions() {
        TrainSpec spec = base().optValidationFraction(0.2).build();
        Tuner t = Dml.tune(spec).optSpace(TrainOptions.LR, "1e-3|1e-2")
                .opt(TuneOptions.SEARCH, SearchKind.GRID).optTrials(2).build();
        assertEquals(2, t.trials().size());
        DmlException e = assertThrows(DmlException.class,
                () -> Dml.tune(spec).opt(TrainOptions.LR, 0.1));
        assertEquals("Dml.tune: opt sets the sweep's own options (TuneOptions), got LR.\n"
                + "Set a training option on the base spec, or vary it with optSpace.",
                e.getMessage());
    }
}
