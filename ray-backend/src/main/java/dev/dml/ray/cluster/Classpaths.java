package dev.dml.ray.cluster;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/** The class path a driver and its workers get: this JVM's, without Ray's own jars. */
final class Classpaths {

    private Classpaths() {}

    /**
     * Returns this JVM's class path entries, with the {@code Class-Path} of manifest-only jars
     * (such as Maven Surefire's booter jar) expanded.
     */
    static List<Path> current() {
        Set<Path> out = new LinkedHashSet<>();
        for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (e.isBlank()) {
                continue;
            }
            Path p = Path.of(e).toAbsolutePath().normalize();
            out.add(p);
            out.addAll(manifestClassPath(p));
        }
        return new ArrayList<>(out);
    }

    /** Returns the entries a jar's manifest adds, resolved against the jar's folder. */
    static List<Path> manifestClassPath(Path jar) {
        List<Path> out = new ArrayList<>();
        if (!jar.toString().endsWith(".jar") || !Files.isRegularFile(jar)) {
            return out;
        }
        try (JarFile jf = new JarFile(jar.toFile())) {
            Manifest m = jf.getManifest();
            String cp = m == null ? null : m.getMainAttributes().getValue("Class-Path");
            if (cp == null) {
                return out;
            }
            URI base = jar.getParent().toUri();
            for (String item : cp.trim().split("\\s+")) {
                if (item.isEmpty()) {
                    continue;
                }
                try {
                    URI u = base.resolve(item);
                    out.add(Path.of(u).toAbsolutePath().normalize());
                } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                    // not a file URL: skip it
                }
            }
        } catch (IOException e) {
            // unreadable jar: keep it as is, without expansion
        }
        return out;
    }

    /**
     * Drops Ray's jars ({@code ray-api-*}, {@code ray-runtime-*}, {@code ray_dist.jar}): drivers
     * and workers get the cluster's {@code ray_dist.jar} instead, so versions never mix.
     */
    static List<Path> withoutRay(List<Path> entries) {
        List<Path> out = new ArrayList<>();
        for (Path p : entries) {
            if (!isRayJar(p)) {
                out.add(p);
            }
        }
        return out;
    }

    static boolean isRayJar(Path p) {
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        return name.equals("ray_dist.jar")
                || name.startsWith("ray-api-") && name.endsWith(".jar")
                || name.startsWith("ray-runtime-") && name.endsWith(".jar");
    }

    /** Joins entries with {@code :}. */
    static String join(List<Path> entries) {
        List<String> s = new ArrayList<>();
        for (Path p : entries) {
            s.add(p.toString());
        }
        return String.join(File.pathSeparator, s);
    }
}
