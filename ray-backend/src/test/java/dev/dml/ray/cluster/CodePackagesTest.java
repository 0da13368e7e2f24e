package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a class path becomes content-named packages: no cluster needed. */
class CodePackagesTest {

    @TempDir
    Path dir;

    private Path file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, content);
    }

    @Test
    void dmlJarsAndClassFoldersAreCodeOtherJarsAreDependencies() throws IOException {
        Path dep = file("m2/guava.jar", "guava");
        Path dml = file("lib/dml-core-0.1.jar", "core");
        file("classes/dev/dml/A.class", "a");
        CodePackages p = CodePackages.of(List.of(dep, dml, dir.resolve("classes")),
                dir.resolve("scratch"));
        assertEquals(2, p.packages().size());
        CodePackages.Package code = p.packages().get(0);
        CodePackages.Package deps = p.packages().get(1);
        assertTrue(code.uri().matches("gcs://dml-code-[0-9a-f]{20}\\.zip"), code.uri());
        assertTrue(deps.uri().matches("gcs://dml-deps-[0-9a-f]{20}\\.zip"), deps.uri());
        assertEquals(List.of("guava.jar"), deps.entries().stream()
                .map(CodePackages.Entry::name).toList());
        assertEquals("dml-core-0.1.jar", code.entries().get(0).name());
        assertTrue(code.entries().get(1).name().matches("classes-[0-9a-f]{12}\\.jar"));
        try (ZipFile z = new ZipFile(code.entries().get(1).file().toFile())) {
            assertEquals("a", new String(z.getInputStream(z.getEntry("dev/dml/A.class"))
                    .readAllBytes()));
        }
    }

    @Test
    void theSameContentGivesTheSameNameAChangeAnother() throws IOException {
        Path dep = file("m2/guava.jar", "guava");
        file("classes/dev/dml/A.class", "a");
        List<Path> cp = List.of(dep, dir.resolve("classes"));
        List<String> first = CodePackages.of(cp, dir.resolve("s1")).uris();
        // a rebuild: same bytes, new file times; class folder jars must not depend on them
        Files.setLastModifiedTime(dir.resolve("classes/dev/dml/A.class"),
                FileTime.fromMillis(1_000_000));
        assertEquals(first, CodePackages.of(cp, dir.resolve("s2")).uris());
        file("classes/dev/dml/A.class", "a, changed");
        List<String> changed = CodePackages.of(cp, dir.resolve("s3")).uris();
        assertEquals(first.get(1), changed.get(1), "the dependencies did not change");
        assertNotEquals(first.get(0), changed.get(0), "a changed class renames the code");
    }

    @Test
    void jarsOfTheSameNameStayApart() throws IOException {
        Path a = file("a/util.jar", "one");
        Path b = file("b/util.jar", "two");
        List<String> names = CodePackages.of(List.of(a, b), dir.resolve("s")).packages().get(0)
                .entries().stream().map(CodePackages.Entry::name).toList();
        assertEquals("util.jar", names.get(0));
        assertTrue(names.get(1).matches("util-[0-9a-f]{8}\\.jar"), names.toString());
    }
}
