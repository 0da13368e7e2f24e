package dev.dml.kernel.exec;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The jars and class folders a user added to the kernel ({@code %jars}, {@code %classpath},
 * {@code %maven}), and the bytecode of their classes: the driver and the workers do not have
 * them on their class path, so a job that needs one of their classes (a {@code --block}
 * factory) takes the bytes along, as it takes a cell's classes.
 */
final class AddedClasses {

    private final List<Path> entries = new CopyOnWriteArrayList<>();

    /** Records a jar or folder the cells now compile and run against. */
    void add(String path) {
        entries.add(Path.of(path));
    }

    /**
     * Reads the classes of every jar and folder added so far.
     *
     * @return bytecode by binary class name; the first entry added wins, as on a class path
     * @throws DmlException when an added jar or folder cannot be read
     */
    Map<String, byte[]> classes() {
        Map<String, byte[]> out = new HashMap<>();
        for (Path p : entries) {
            try {
                if (Files.isDirectory(p)) {
                    readFolder(p, out);
                } else if (Files.isRegularFile(p)) {
                    readJar(p, out);
                }
            } catch (IOException e) {
                throw new DmlException("The class path entry " + p + " added to the kernel"
                        + " cannot be read: " + DmlException.literal(e) + ".",
                        "Check that the file is still there, or restart the kernel.", e);
            }
        }
        return out;
    }

    private static void readJar(Path jar, Map<String, byte[]> out) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            for (JarEntry e : java.util.Collections.list(f.entries())) {
                String n = e.getName();
                if (n.endsWith(".class") && !n.equals("module-info.class")
                        && !n.startsWith("META-INF/")) {
                    try (InputStream in = f.getInputStream(e)) {
                        out.putIfAbsent(binaryName(n), in.readAllBytes());
                    }
                }
            }
        }
    }

    private static void readFolder(Path root, Map<String, byte[]> out) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            Iterable<Path> classes = files.filter(x -> x.toString().endsWith(".class"))::iterator;
            for (Path f : classes) {
                String n = root.relativize(f).toString().replace(java.io.File.separatorChar, '/');
                if (!n.equals("module-info.class")) {
                    out.putIfAbsent(binaryName(n), Files.readAllBytes(f));
                }
            }
        }
    }

    /** {@code a/b/C$D.class} is {@code a.b.C$D}. */
    private static String binaryName(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }
}
