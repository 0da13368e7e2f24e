package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;

/**
 * {@code --detach}, {@code %dml attach} and {@code %dml stop RUN} check their words before any
 * backend: where no backend is installed, what reaches it says so.
 */
class DetachedCommandsTest {

    private final RecordingKernel kernel = new RecordingKernel();
    private final DmlMagics magics = DmlMagics.standard();

    private String failure(String... words) {
        return assertThrows(DmlException.class, () -> magics.eval(kernel, List.of(words)))
                .getMessage();
    }

    @Test
    void attachIsListedWithItsUsage() {
        magics.eval(kernel, List.of("help", "attach"));
        String help = (String) kernel.displayed.get(0).getData(MIMEType.TEXT_PLAIN);
        assertTrue(help.startsWith("%dml attach: follow a recorded run"), help);
        assertTrue(help.contains("%dml attach RUN [--into NAME]"), help);
        assertTrue(failure("attach").contains("%dml attach RUN [--into NAME]"));
        assertTrue(failure("attach", "fraud-20261127-231500-1a2b").startsWith("No dml backend"));
    }

    @Test
    void aDetachedJobHasNoResultToBindYet() {
        String m = failure("train", "fraud", "--label", "is_fraud", "--detach", "--into", "m");
        assertTrue(m.startsWith("--into binds a result, and a detached job has none until it"
                + " ends."), m);
        assertTrue(m.contains("%dml attach RUN --into NAME binds it later."), m);
        assertEquals(0, kernel.displayed.size());
    }

    @Test
    void detachIsRefusedWhereNoJobIsKept() {
        assertTrue(failure("scale", "fraud", "--label", "is_fraud", "--detach")
                .startsWith("%dml scale does not take --detach"));
    }

    @Test
    void stopTellsRunsFromTheSessionsJobs() {
        assertTrue(DetachedJobs.isRunId("fraud-20261127-231500-1a2b"));
        assertFalse(DetachedJobs.isRunId("fraud-1-3fa2c1"));
        assertTrue(failure("stop", "fraud-20261127-231500-1a2b").startsWith("No dml backend"));
        assertTrue(failure("stop", "fraud-1-3fa2c1").contains("this session has run none"));
    }
}
