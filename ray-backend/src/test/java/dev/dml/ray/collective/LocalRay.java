package dev.dml.ray.collective;

import io.ray.api.Ray;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Ray's in-process LOCAL mode for unit tests, and the cleanup Ray forgets: each LOCAL session
 * copies a 40 MB native library into {@code /tmp/ray/session_local_mode_*_<pid>}.
 */
public final class LocalRay {

    private static final Path RAY_TMP = Path.of("/tmp/ray");

    private LocalRay() {}

    /** Starts LOCAL mode and deletes its session folder at once (the library is mapped). */
    public static void start() throws IOException {
        System.setProperty("ray.run-mode", "LOCAL");
        Ray.init();
        deleteSessionDirs();
    }

    /** Ends LOCAL mode and deletes its session folder. */
    public static void stop() throws IOException {
        Ray.shutdown();
        System.clearProperty("ray.run-mode");
        deleteSessionDirs();
    }

    private static void deleteSessionDirs() throws IOException {
        for (Path dir : sessionDirs()) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** This JVM's LOCAL session folders. */
    public static List<Path> sessionDirs() throws IOException {
        if (!Files.isDirectory(RAY_TMP)) {
            return List.of();
        }
        String suffix = "_" + ProcessHandle.current().pid();
        try (Stream<Path> list = Files.list(RAY_TMP)) {
            return list.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith("session_local_mode_") && n.endsWith(suffix);
            }).collect(Collectors.toList());
        }
    }
}
