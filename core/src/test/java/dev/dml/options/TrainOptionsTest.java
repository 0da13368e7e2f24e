package dev.dml.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TrainOptionsTest {

    @Test
    void everyConstantIsListedOnceUnderItsOwnName() throws IllegalAccessException {
        Set<Option<?>> constants = new HashSet<>();
        for (Field f : TrainOptions.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == Option.class) {
                Option<?> o = (Option<?>) f.get(null);
                assertEquals(f.getName(), o.constant(), "constant of " + o);
                constants.add(o);
            }
        }
        assertEquals(constants, new HashSet<>(TrainOptions.ALL));
        assertEquals(TrainOptions.ALL.size(), TrainOptions.ALL.stream().map(Option::name)
                .distinct().count());
    }

    @Test
    void everyExampleParsesAndEveryDefaultIsValid() {
        for (Option<?> o : TrainOptions.ALL) {
            assertExampleRoundTrips(o);
            Object d = OptionValues.empty().get(o);
            if (d != null) {
                assertTrue(isValid(o, d), o + " default " + d);
                assertFalse(o.defaultText() == null || o.defaultText().isBlank(), o.name());
            }
        }
    }

    private static <T> void assertExampleRoundTrips(Option<T> o) {
        T v = o.parse(o.example());
        assertEquals(v, o.parse(o.type().format(v)), o.name());
    }

    @SuppressWarnings("unchecked")
    private static <T> boolean isValid(Option<T> o, Object v) {
        return o.type().isValid((T) v);
    }

    @Test
    void aBadValueIsNamedInEachVocabulary() {
        DmlException e = assertThrows(DmlException.class,
                () -> TrainOptions.BATCH_SIZE.parse("0"));
        assertEquals("optBatchSize must be a whole number of at least 1, got '0'.", e.what());
        assertEquals("For example optBatchSize(128): rows per worker per step.", e.hint());
        e.speaking(Vocabulary.NOTEBOOK);
        assertEquals("--batch-size must be a whole number of at least 1, got '0'.", e.what());
        assertEquals("For example --batch-size 128: rows per worker per step.", e.hint());
    }

    @Test
    void numbersOutsideFloatRangeAreRejectedLikeInfinity() {
        assertThrows(DmlException.class, () -> TrainOptions.LR.parse("1e39"));
        assertThrows(DmlException.class, () -> TrainOptions.LR.parse("1e-50"));
        assertThrows(DmlException.class, () -> TrainOptions.LR.parse("NaN"));
        assertThrows(DmlException.class, () -> TrainOptions.CPUS_PER_WORKER.check(1e40));
        assertEquals(0.5, TrainOptions.LR.parse("0.5"));
    }

    @Test
    void derivedDefaultsFollowTheOptionsTheyDependOn() {
        OptionValues none = OptionValues.empty();
        assertEquals(0.001, none.get(TrainOptions.LR));
        assertEquals(0.05, none.with(TrainOptions.OPTIMIZER, OptimizerKind.SGD)
                .get(TrainOptions.LR));
        assertEquals(List.of(64), none.get(TrainOptions.HIDDEN));
        assertNull(none.with(TrainOptions.MODEL, ModelFamily.LOGISTIC).get(TrainOptions.HIDDEN));
        assertEquals(WorkerRange.of(1), none.get(TrainOptions.WORKERS));
        OptionValues hybrid = none.with(TrainOptions.STRATEGY, StrategyKind.HYBRID)
                .with(TrainOptions.STAGES, List.of(2, 1, 1));
        assertEquals(WorkerRange.of(6), hybrid.get(TrainOptions.WORKERS));
        assertEquals("1f1b", hybrid.get(TrainOptions.SCHEDULE).word());
        assertEquals(1, none.with(TrainOptions.STRATEGY, StrategyKind.MODEL)
                .get(TrainOptions.MICROBATCHES));
        assertFalse(hybrid.isSet(TrainOptions.WORKERS));
    }

    @Test
    void aChoiceIsAnEnumThatReadsAndWritesTheWordsTheHelpLists() {
        assertEquals("--schedule gpipe|1f1b", TrainOptions.SCHEDULE.usage());
        assertEquals(PipelineSchedule.ONE_F_ONE_B, TrainOptions.SCHEDULE.parse(" 1F1B "));
        assertEquals("--balance params|time", TrainOptions.BALANCE.usage());
        assertEquals("params", TrainOptions.BALANCE.defaultText());
        assertEquals(StageBalance.PARAMETERS, TrainOptions.BALANCE.checkWord("params"));
        assertEquals(SyncMode.SYNC, TrainOptions.SYNC.parse("SYNC"));
        assertEquals(new SyncMode(SyncMode.Kind.SSP, 3), TrainOptions.SYNC.parse("ssp:3"));
        DmlException e = assertThrows(DmlException.class,
                () -> TrainOptions.PLACEMENT.checkWord("scatter"));
        assertEquals("--placement must be one of pack, spread, got scatter.",
                e.speaking(Vocabulary.NOTEBOOK).what());
        for (Option<?> o : TrainOptions.ALL) {
            assertWritesWhatItReads(o);
        }
    }

    /** The example, read and written back, reads as the same value. */
    private static <T> void assertWritesWhatItReads(Option<T> o) {
        T v = o.parse(o.example());
        assertEquals(v, o.parse(o.type().format(v)), o.flag());
    }

    @Test
    void choicesIgnoreCaseAndListTheWords() {
        assertEquals("sgd", TrainOptions.OPTIMIZER.parse("SGD").word());
        DmlException e = assertThrows(DmlException.class,
                () -> TrainOptions.OPTIMIZER.parse("rmsprop"));
        assertEquals("--optimizer must be one of adam, sgd, got 'rmsprop'.",
                e.speaking(Vocabulary.NOTEBOOK).what());
    }

    @Test
    void aDeadlineIsATimeWithAUnit() {
        assertEquals(1800.0, TrainOptions.DEADLINE.parse("30m"));
        assertEquals(5400.0, TrainOptions.DEADLINE.parse("1h30m"));
        assertEquals(90.0, TrainOptions.DEADLINE.parse(" 90s "));
        assertEquals("1h30m", TrainOptions.DEADLINE.type().format(5400.0));
        for (String bad : List.of("30", "m", "2d", "1h 30m", "-5m", "0s")) {
            DmlException e = assertThrows(DmlException.class,
                    () -> TrainOptions.DEADLINE.parse(bad), bad);
            assertTrue(e.getMessage().contains("a time such as 90s, 30m, 2h or 1h30m"),
                    e.getMessage());
        }
        assertEquals(2.5, TrainOptions.BUDGET.parse("2.50"));
    }
}
