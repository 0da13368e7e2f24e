package dev.dml.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SearchSpaceTest {

    private static String cell(Option<?> o, String text) {
        DmlException e = assertThrows(DmlException.class, () -> SearchSpace.parse(o, text));
        return e.speaking(Vocabulary.NOTEBOOK).getMessage();
    }

    @Test
    void readsRangesAndChoicesInTheOptionsOwnTerms() {
        SearchSpace.Range lr = (SearchSpace.Range) SearchSpace.parse(TrainOptions.LR,
                "1e-4..1e-2:log");
        assertEquals(new SearchSpace.Range(TrainOptions.LR, 1e-4, 1e-2, true, false), lr);
        SearchSpace.Choices hidden = (SearchSpace.Choices) SearchSpace.parse(
                TrainOptions.HIDDEN, "32,32|64,64|128");
        assertEquals(List.of(List.of(32, 32), List.of(64, 64), List.of(128)), hidden.values());
        SearchSpace.Range epochs = (SearchSpace.Range) SearchSpace.parse(TrainOptions.EPOCHS,
                "2..6");
        assertTrue(epochs.whole());
    }

    @Test
    void tellsASpaceFromOneValue() {
        assertTrue(SearchSpace.isSpace("64|256"));
        assertTrue(SearchSpace.isSpace("0.001..0.1"));
        assertTrue(SearchSpace.isSpace("1e-4..1e-2:log"));
        assertFalse(SearchSpace.isSpace("0.001"));
        assertFalse(SearchSpace.isSpace("64,32"));
        assertFalse(SearchSpace.isSpace("../checkpoints"));
    }

    @Test
    void badSpacesSayWhatIsWrongAndHowToWriteIt() {
        assertEquals("--lr '1e-2..1e-4:log': the range's low end is not below its high end.\n"
                + "Write LOW..HIGH, e.g. --lr 1e-4..1e-2:log.", cell(TrainOptions.LR,
                "1e-2..1e-4:log"));
        assertEquals("--hidden takes no range ('1..4'): its values are no numbers.\n"
                + "List its values instead, e.g. --hidden 64,32|64,32.", cell(
                TrainOptions.HIDDEN, "1..4"));
        assertTrue(cell(TrainOptions.CPUS_PER_WORKER, "0..1:log").startsWith("--cpus-per-worker"
                + " '0..1:log': a log range must start above 0."));
        assertTrue(cell(TrainOptions.BATCH_SIZE, "64||256").contains("has an empty choice"));
        assertTrue(cell(TrainOptions.INTO, "a|b").startsWith("--into is the same for every"
                + " trial"));
        // a value the option itself refuses, in its own words
        assertTrue(cell(TrainOptions.LR, "fast|1e-3").startsWith("--lr must be"));
    }

    @Test
    void aGridIsEveryCombinationAndRefusesARange() {
        SearchSpace space = new SearchSpace(List.of(
                SearchSpace.parse(TrainOptions.HIDDEN, "32|64"),
                SearchSpace.parse(TrainOptions.BATCH_SIZE, "16|32|64")));
        assertEquals(6, space.gridSize());
        OptionValues fixed = OptionValues.empty().with(TrainOptions.EPOCHS, 3);
        List<OptionValues> grid = space.grid(fixed);
        assertEquals(6, grid.size());
        assertEquals(6, new HashSet<>(grid).size());
        assertTrue(grid.stream().allMatch(v -> v.get(TrainOptions.EPOCHS) == 3));
        assertEquals("hidden=64 batch-size=32", space.describe(grid.get(4)));

        SearchSpace ranged = new SearchSpace(List.of(SearchSpace.parse(TrainOptions.LR,
                "1e-4..1e-2:log")));
        DmlException e = assertThrows(DmlException.class, ranged::gridSize);
        assertEquals("--search grid cannot enumerate the range --lr 0.000100..0.0100:log.\n"
                + "List its values (e.g. --lr 0.000100|0.0100), or sample it with --search"
                + " random --trials 12.", e.speaking(Vocabulary.NOTEBOOK).getMessage());
    }

    @Test
    void randomDrawsStayInTheSpaceAndRepeatWithTheSeed() {
        SearchSpace space = new SearchSpace(List.of(
                SearchSpace.parse(TrainOptions.LR, "1e-4..1e-2:log"),
                SearchSpace.parse(TrainOptions.EPOCHS, "2..5"),
                SearchSpace.parse(TrainOptions.BATCH_SIZE, "64|256")));
        List<OptionValues> a = space.random(OptionValues.empty(), 200, 7);
        assertEquals(a, space.random(OptionValues.empty(), 200, 7));
        Set<Integer> epochs = new HashSet<>();
        int belowMillis = 0;
        for (OptionValues v : a) {
            double lr = v.get(TrainOptions.LR);
            assertTrue(lr >= 1e-4 && lr <= 1e-2, "lr " + lr);
            belowMillis += lr < 1e-3 ? 1 : 0;
            epochs.add(v.get(TrainOptions.EPOCHS));
            assertTrue(Set.of(64, 256).contains(v.get(TrainOptions.BATCH_SIZE)));
        }
        assertEquals(Set.of(2, 3, 4, 5), epochs);
        // log-uniform: about half the draws below the geometric middle (uniform: ~9%)
        assertTrue(belowMillis > 70 && belowMillis < 130, "below 1e-3: " + belowMillis);
    }
}
