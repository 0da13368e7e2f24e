package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClasspathsTest {

    @TempDir
    Path dir;

    @Test
    void manifestOnlyJarsAreExpanded() throws IOException {
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                "lib/a.jar " + dir.resolve("classes").toUri());
        Path booter = dir.resolve("booter.jar");
        try (OutputStream out = Files.newOutputStream(booter);
                JarOutputStream jar = new JarOutputStream(out, m)) {
            jar.flush();
        }
        assertEquals(List.of(lib.resolve("a.jar"), dir.resolve("classes")),
                Classpaths.manifestClassPath(booter));
    }

    @Test
    void rayJarsAreDropped() {
        List<Path> in = List.of(Path.of("/m2/ray-api-2.39.0.jar"), Path.of("/x/classes"),
                Path.of("/m2/ray-runtime-2.39.0.jar"), Path.of("/site/ray/jars/ray_dist.jar"),
                Path.of("/m2/gson-2.11.0.jar"), Path.of("/m2/array-api-1.jar"));
        assertEquals(List.of(Path.of("/x/classes"), Path.of("/m2/gson-2.11.0.jar"),
                Path.of("/m2/array-api-1.jar")), Classpaths.withoutRay(in));
    }

    @Test
    void thisJvmsClassPathIncludesTheTestClasses() {
        Path here = Path.of(ClasspathsTest.class.getProtectionDomain().getCodeSource()
                .getLocation().getPath()).toAbsolutePath().normalize();
        assertTrue(Classpaths.current().contains(here), Classpaths.current().toString());
    }
}
