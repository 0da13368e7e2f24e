package dev.dml.kernel;

import dev.dml.kernel.exec.CellException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kernel as Jupyter drives it, minus the sockets: magics, class path, bodyless cells. */
class DmlKernelTest {

    private static DmlKernel kernel;

    @BeforeAll
    static void start() {
        kernel = DmlKernel.builder().build();
        kernel.onStartup(); // installs the %dml extension found through META-INF/services
    }

    @AfterAll
    static void stop() {
        kernel.onShutdown(false);
    }

    @Test
    void dmlExtensionIsLoadedAtStartup() {
        assertTrue(kernel.getMagicsRegistry().getLineMagicNames().containsAll(
                List.of("dml", "jars", "classpath")));
        assertTrue(kernel.getMagicsRegistry().getCellMagicNames().contains("dml"));
    }

    @Test
    void jarsMagicAddsAJarThatLaterCellsUse(@TempDir Path dir) throws IOException {
        Path jar = greeterJar(dir);
        assertThrows(CellException.CompilationException.class,
                () -> kernel.evalRaw("new demo.Greeter().hello()"));
        kernel.evalRaw("%jars " + dir.resolve("*.jar"));
        assertEquals("hello from a jar", kernel.evalRaw("new demo.Greeter().hello()"));
        assertTrue(Files.exists(jar));
    }

    @Test
    void jarsMagicNamesAPathThatMatchesNothing(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> kernel.evalRaw("%jars " + dir.resolve("missing-*.jar")));
        assertTrue(e.getMessage().startsWith("nothing matches '"), e.getMessage());
    }

    @Test
    void cellMagicWithoutABodyLineStillRuns() {
        DmlException e = assertThrows(DmlException.class, () -> kernel.evalRaw("%%dml nope"));
        assertTrue(e.getMessage().startsWith("unknown sub-command 'nope'."), e.getMessage());
    }

    @Test
    void lineMagicReturnsNoValue() {
        assertEquals(null, kernel.evalRaw("%dml version"));
    }

    /** A one-class jar, as a user's own library would be. */
    private static Path greeterJar(Path dir) throws IOException {
        return TestJars.compile(dir.resolve("greeter.jar"), "demo.Greeter",
                "package demo; public class Greeter {"
                        + " public String hello() { return \"hello from a jar\"; } }", "");
    }
}
