package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code %dml train --sync} and {@code --ps}, in the line and cell forms. */
class SyncGrammarTest {

    private static TrainRequest line(String words) {
        return TrainRequest.parse(List.of(words.split(" ")), null);
    }

    @Test
    void syncTakesAModeAndPsACountWithDefaultsThatFollowIt() {
        TrainRequest plain = line("fraud --label y");
        assertEquals("sync", plain.get(TrainOptions.SYNC).toString());
        assertNull(plain.get(TrainOptions.PS), "no servers for a synchronous job");
        assertEquals(1, line("fraud --label y --sync ASYNC").get(TrainOptions.PS));
        TrainRequest ssp = TrainRequest.parse(List.of(), "table: fraud\nlabel: y\n"
                + "sync: ssp:3\nps: 2");
        assertEquals("ssp:3", ssp.get(TrainOptions.SYNC).toString());
        assertEquals(2, ssp.get(TrainOptions.PS));
    }

    @Test
    void aBadModeIsOneLine() {
        String e = assertThrows(DmlException.class,
                () -> line("fraud --label y --sync ssp:x")).getMessage();
        assertEquals("%dml train: --sync must be sync, async, or ssp:S with S a whole number of"
                + " at least 0, got 'ssp:x'.", e.lines().findFirst().orElse(""));
    }
}
