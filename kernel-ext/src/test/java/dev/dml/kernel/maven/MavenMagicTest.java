package dev.dml.kernel.maven;

import dev.dml.kernel.DmlKernel;
import dev.dml.kernel.TestJars;
import dev.dml.kernel.exec.CellException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import eu.maveniverse.maven.mima.context.ContextOverrides;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code %maven} in the kernel, with Maven's real resolver working offline: against a local
 * repository this test lays out, and against the one this build filled.
 */
class MavenMagicTest {

    @TempDir
    static Path repo;
    private static DmlKernel kernel;

    @BeforeAll
    static void start() throws IOException {
        // demo:greeter:1.0 depends on demo:words:1.0, so %maven must bring both.
        Path words = TestJars.compile(artifact("words", "jar"), "demo.words.Words",
                "package demo.words; public class Words {"
                        + " public static final String WORLD = \"world\"; }", "");
        Files.writeString(artifact("words", "pom"), pom("words", ""));
        TestJars.compile(artifact("greeter", "jar"), "demo.Greeter",
                "package demo; public class Greeter {"
                        + " public String hello() {"
                        + " return \"hello, \" + demo.words.Words.WORLD; } }",
                words.toString());
        Files.writeString(artifact("greeter", "pom"), pom("greeter", "<dependencies><dependency>"
                + "<groupId>demo</groupId><artifactId>words</artifactId><version>1.0</version>"
                + "</dependency></dependencies>"));
        kernel = DmlKernel.builder().mavenResolver(offline(repo)).build();
        kernel.onStartup(); // cells reach their magics through the notebook's kernel
    }

    @AfterAll
    static void stop() {
        kernel.onShutdown(false);
    }

    @Test
    void mavenAddsAnArtifactAndItsDependenciesForLaterCells() {
        assertThrows(CellException.CompilationException.class,
                () -> kernel.evalRaw("new demo.Greeter().hello()"));
        kernel.evalRaw("var added = %maven demo:greeter:1.0");
        assertEquals(List.of("greeter-1.0.jar", "words-1.0.jar"), kernel.evalRaw("added"));
        assertEquals("hello, world", kernel.evalRaw("new demo.Greeter().hello()"));
        kernel.evalRaw("var again = %maven demo:words:1.0");
        assertEquals(List.of(), kernel.evalRaw("again"), "already added");
    }

    @Test
    void malformedCoordinatesSayHowToWriteThem() {
        DmlException e = assertThrows(DmlException.class, () -> kernel.evalRaw("%maven junit"));
        assertEquals("'junit' is not a Maven artifact.\nWrite GROUP:ARTIFACT:VERSION, as in"
                + " %maven org.apache.commons:commons-text:1.12.0", e.getMessage());
        DmlException none = assertThrows(DmlException.class, () -> kernel.evalRaw("%maven"));
        assertTrue(none.getMessage().startsWith("%maven needs at least one artifact."));
        DmlException option = assertThrows(DmlException.class,
                () -> kernel.evalRaw("%maven --from x demo:greeter:1.0"));
        assertTrue(option.getMessage().startsWith("%maven takes no option '--from'"));
    }

    @Test
    void anArtifactMavenCannotFindIsNamedOnOneLine() {
        DmlException e = assertThrows(DmlException.class,
                () -> kernel.evalRaw("%maven demo:missing:2.0"));
        String[] lines = e.getMessage().split("\n");
        assertEquals(2, lines.length, e.getMessage());
        assertTrue(lines[0].startsWith("Maven could not resolve demo:missing:2.0: "), lines[0]);
        assertTrue(lines[0].contains("the artifact demo:missing:jar:2.0 has not been downloaded"),
                lines[0]);
        assertTrue(lines[1].startsWith("Check the coordinates"), lines[1]);
    }

    /** A library this build itself downloaded resolves, with its dependencies, offline. */
    @Test
    void resolvesFromTheBuildsOwnLocalRepository() throws URISyntaxException {
        Path jar = Path.of(BaseKernel.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI()); // <repo>/org/dflib/jjava/jjava-jupyter/<version>/<name>.jar
        Path version = jar.getParent();
        Path local = version.getParent().getParent().getParent().getParent().getParent();
        List<String> names = offline(local).resolve(List.of(
                "org.dflib.jjava:jjava-jupyter:" + version.getFileName())).stream()
                .map(p -> p.getFileName().toString()).toList();
        assertEquals(jar.getFileName().toString(), names.get(0));
        assertTrue(names.stream().anyMatch(n -> n.startsWith("jeromq-")), names.toString());
        assertTrue(names.stream().anyMatch(n -> n.startsWith("jnacl-")), names.toString());
    }

    private static MavenResolver offline(Path localRepository) {
        return new MavenResolver(ContextOverrides.create().withUserSettings(false).offline(true)
                .withLocalRepositoryOverride(localRepository).build());
    }

    private static Path artifact(String name, String extension) {
        return repo.resolve("demo/" + name + "/1.0/" + name + "-1.0." + extension);
    }

    private static String pom(String name, String dependencies) {
        return "<project><modelVersion>4.0.0</modelVersion><groupId>demo</groupId>"
                + "<artifactId>" + name + "</artifactId><version>1.0</version>"
                + dependencies + "</project>";
    }
}
