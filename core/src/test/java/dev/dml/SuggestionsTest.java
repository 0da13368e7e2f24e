package dev.dml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SuggestionsTest {

    private static final List<String> COMMANDS = List.of("train", "status", "stop", "cluster",
            "help", "version");

    @Test
    void swappedLettersAreOneEdit() {
        assertEquals(1, Suggestions.editDistance("trian", "train"));
        assertEquals(Optional.of("train"), Suggestions.closest("trian", COMMANDS));
    }

    @Test
    void prefixesPointToTheCommand() {
        assertEquals(Optional.of("version"), Suggestions.closest("ver", COMMANDS));
    }

    @Test
    void farWordsGetNoGuess() {
        assertEquals(Optional.empty(), Suggestions.closest("xyzzy", COMMANDS));
    }

    @Test
    void caseIsIgnoredAndTheGuessKeepsItsOwnCase() {
        assertEquals(Optional.of("Amount"),
                Suggestions.closest("amuont", List.of("Amount", "age")));
        assertEquals("Did you mean 'key'? ", Suggestions.didYouMean("kye", List.of("key", "v")));
        assertEquals("", Suggestions.didYouMean("xyzzy", List.of("key", "v")));
    }
}
