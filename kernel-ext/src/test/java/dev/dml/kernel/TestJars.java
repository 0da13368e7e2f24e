package dev.dml.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles one Java class into a jar, as a user's own library would be built. */
public final class TestJars {

    private TestJars() {
    }

    /**
     * Compiles {@code source} (one public class, named {@code className}) into {@code jar}.
     *
     * @param classPath what the source compiles against; empty for nothing
     */
    public static Path compile(Path jar, String className, String source, String classPath)
            throws IOException {
        Path work = Files.createTempDirectory("dml-javac");
        Path src = work.resolve("src/" + className.replace('.', '/') + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source);
        Path classes = work.resolve("classes");
        List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
        if (!classPath.isEmpty()) {
            args.addAll(List.of("-cp", classPath));
        }
        args.add(src.toString());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "javac failed");
        Files.createDirectories(jar.getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString()));
                Files.copy(f, out);
            }
        }
        return jar;
    }
}
