package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.tune.SearchSpace;
import dev.dml.tune.Trial;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code %dml tune}'s cell: spaces beside the options they vary, checked before anything runs. */
class TuneRequestTest {

    private static TuneRequest parse(String line) {
        return TuneRequest.parse(Arrays.asList(line.split(" ")), null);
    }

    private static String failure(String line) {
        return assertThrows(DmlException.class, () -> parse(line)).getMessage();
    }

    @Test
    void readsTheSpaceBesideTheFixedOptions() {
        TuneRequest r = parse("fashion --label y --validation 0.2 --lr 1e-4..1e-2:log"
                + " --hidden 32,32|64,64|128 --batch-size 64|256 --trials 12 --search random"
                + " --scheduler asha --metric val_accuracy --concurrent 2 --epochs 9"
                + " --cpus-per-worker 0.5 --deadline 30m");
        assertEquals("fashion", r.source());
        assertEquals(List.of(TrainOptions.HIDDEN, TrainOptions.BATCH_SIZE, TrainOptions.LR),
                r.space().dimensions().stream().map(SearchSpace.Dimension::option).toList());
        assertEquals(9, r.fixed().get(TrainOptions.EPOCHS));
        List<Trial> trials = r.trials("sweep-1");
        assertEquals(12, trials.size());
        for (Trial t : trials) {
            assertEquals("sweep-1", t.options().get(TuneOptions.SWEEP));
            assertEquals(9, t.options().get(TrainOptions.EPOCHS));
            assertEquals(0.5, t.options().get(TrainOptions.CPUS_PER_WORKER));
            // the deadline is the sweep's, not each trial's
            assertEquals(null, t.options().get(TrainOptions.DEADLINE));
            assertTrue(!t.options().isSet(TuneOptions.TRIALS));
        }
        assertEquals(12, new HashSet<>(trials.stream().map(Trial::settings).toList()).size());
        assertEquals("best", r.into());
    }

    @Test
    void aGridOfChoicesIsTheDefaultSearch() {
        TuneRequest r = parse("t --label y --hidden 16|32 --batch-size 8|16|32 --into top");
        assertEquals("grid", r.search());
        assertEquals(6, r.trials("s").size());
        assertEquals("top", r.into());
        assertEquals("random", parse("t --label y --lr 1e-3..1e-1").search());
        assertEquals(TuneRequest.RANDOM_TRIALS, parse("t --label y --lr 1e-3..1e-1")
                .trials("s").size());
    }

    @Test
    void theCellFormTakesSpacesToo() {
        TuneRequest r = TuneRequest.parse(List.of(), "table: t\nlabel: y\nlr: 1e-3|1e-2\n"
                + "hidden: 16, 16|32");
        assertEquals(4, r.trials("s").size());
    }

    @Test
    void badCellsSayWhatIsWrongAndHowToFixItInOptionWords() {
        assertEquals("%dml tune: --lr '1e-2..1e-4': the range's low end is not below its high"
                + " end.\nWrite LOW..HIGH, e.g. --lr 1e-4..1e-2.",
                failure("t --label y --lr 1e-2..1e-4"));
        assertEquals("%dml tune: the grid has 6 configurations, and --trials 12 asks for 12.\n"
                + "Leave --trials out to run the grid, or draw 12 with --search random.",
                failure("t --label y --hidden 16|32 --batch-size 8|16|32 --trials 12"));
        assertEquals("--search grid cannot enumerate the range --lr 0.00100..0.100.\n"
                + "List its values (e.g. --lr 0.00100|0.100), or sample it with --search"
                + " random --trials 12.", failure("t --label y --lr 1e-3..1e-1 --search grid"));
        assertEquals("%dml tune ranks trials by --metric val_accuracy, which needs validation"
                + " rows.\nAdd --validation 0.2, or rank by --metric train_loss.",
                failure("t --label y --lr 1e-3|1e-2 --metric val_accuracy"));
        assertEquals("%dml tune: no option varies, so there is nothing to search.\n"
                + "Write a space where an option's value goes, e.g. --lr 1e-4..1e-2:log or"
                + " --hidden 32|64,64.", failure("t --label y --lr 1e-3"));
        assertTrue(failure("t --label y --lr 1e-3|1e-2 --background").startsWith(
                "%dml tune runs its trials in its cell and takes no --background."));
        assertTrue(failure("t --label y --lr 1e-3|1e-2 --detach").startsWith(
                "%dml tune runs its trials in its cell and takes no --detach."));
        assertTrue(failure("t --label y --lr 1e-3|1e-2 --sheduler asha").startsWith(
                "%dml tune: unknown option --sheduler.\nDid you mean --scheduler?"));
        assertTrue(failure("t --label y --lr 1e-3|1e-2 --scheduler hyperband").startsWith(
                "%dml tune: --scheduler must be one of asha, none, got 'hyperband'."));
        assertTrue(failure("t --lr 1e-3|1e-2").startsWith("%dml tune needs --label"));
    }
}
