package dev.dml.magics;

import dev.dml.DmlException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;

class DmlMagicsTest {

    private final RecordingKernel kernel = new RecordingKernel();
    private final DmlMagics magics = DmlMagics.standard();

    private String shownText() {
        assertEquals(1, kernel.displayed.size(), "expected one display");
        return (String) kernel.displayed.get(0).getData(MIMEType.TEXT_PLAIN);
    }

    @Test
    void helpListsEverySubCommandWithOneLineEach() {
        magics.eval(kernel, List.of("help"));
        String text = shownText();
        for (DmlCommand c : magics.commands()) {
            assertTrue(text.contains("%dml " + c.name()), text);
            assertTrue(text.contains(c.summary()), text);
        }
        DisplayData shown = kernel.displayed.get(0);
        assertTrue(shown.hasDataForType(MIMEType.TEXT_HTML));
    }

    @Test
    void bareDmlShowsHelp() {
        magics.eval(kernel, List.of());
        assertTrue(shownText().contains("%dml version"));
    }

    /** The error a line of {@code words} after {@code %dml} fails with. */
    private DmlException refused(String... words) {
        return assertThrows(DmlException.class, () -> magics.eval(kernel, List.of(words)));
    }

    /** Runs a line that must be refused, and checks that its message says {@code part}. */
    private void assertRefusedSaying(String part, String... words) {
        DmlException e = refused(words);
        assertTrue(e.getMessage().contains(part), e.getMessage());
    }

    @Test
    void helpForOneCommandShowsItsUsage() {
        magics.eval(kernel, List.of("help", "version"));
        assertTrue(shownText().startsWith("%dml version: "));
    }

    @Test
    void helpForAnUnknownCommandSuggestsTheClosest() {
        assertRefusedSaying("Did you mean '%dml help version'?", "help", "verison");
    }

    @Test
    void versionShowsDmlsBuildVersionAndJava() {
        magics.eval(kernel, List.of("version"));
        String text = shownText();
        assertTrue(text.startsWith("dml " + VersionCommand.dmlVersion()), text);
        assertTrue(VersionCommand.dmlVersion().matches("\\d+\\.\\d+\\.\\d+.*"),
                VersionCommand.dmlVersion());
        assertTrue(text.contains("Java " + Runtime.version()), text);
        assertTrue(text.contains("kernel recording 9.9"), text);
        assertTrue(text.contains("jjava-jupyter 1.0-a6"), text);
    }

    @Test
    void unknownSubCommandIsOneClearErrorWithASuggestion() {
        DmlException e = refused("hepl");
        String[] lines = e.getMessage().split("\\R");
        assertEquals(2, lines.length);
        assertEquals("unknown sub-command 'hepl'.", lines[0]);
        assertTrue(lines[1].startsWith("Did you mean '%dml help'?"), lines[1]);
        assertTrue(lines[1].contains("help, version"), lines[1]);
        assertTrue(kernel.displayed.isEmpty());
    }

    @Test
    void unknownSubCommandFarFromAnyGetsNoGuess() {
        DmlException e = refused("zzzzzz");
        assertTrue(!e.getMessage().contains("Did you mean"), e.getMessage());
    }

    @Test
    void extraArgumentsAreRejectedWithTheUsage() {
        DmlException e = refused("version", "now");
        assertEquals("%dml version: Too many positional arguments."
                + System.lineSeparator() + "Usage: %dml version", e.getMessage());
    }

    @Test
    void unknownFlagIsRejected() {
        assertRefusedSaying("Unknown keyword argument 'verbose'", "help", "--verbose");
    }

    @Test
    void cellFormDispatchesLikeTheLineForm() {
        magics.eval(kernel, List.of("version"), "");
        assertTrue(shownText().startsWith("dml "));
    }

    @Test
    void commandNamesAreUnique() {
        assertThrows(IllegalArgumentException.class,
                () -> magics.add(magics.commands().get(0)));
    }
}
