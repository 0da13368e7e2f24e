package dev.dml.kernel;

import java.nio.file.Path;
import java.util.Map;

/**
 * Every {@code DML_*} setting the kernel reads, in one place.
 *
 * @param logDir where the kernel writes its log ({@code DML_LOG_DIR}, default
 *     {@code ~/.local/share/dml/logs})
 * @param logLevel slf4j level for the kernel log ({@code DML_LOG_LEVEL}, default {@code info})
 */
public record DmlEnv(Path logDir, String logLevel) {

    /** Environment variable naming the log folder. */
    public static final String LOG_DIR = "DML_LOG_DIR";
    /** Environment variable naming the log level. */
    public static final String LOG_LEVEL = "DML_LOG_LEVEL";

    /** Reads the settings from the process environment. */
    public static DmlEnv fromSystem() {
        return from(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /** Reads the settings from the given variables, defaulting relative to {@code home}. */
    static DmlEnv from(Map<String, String> env, Path home) {
        String dir = env.get(LOG_DIR);
        Path logDir = dir == null || dir.isBlank()
                ? home.resolve(".local/share/dml/logs")
                : Path.of(dir);
        String level = env.getOrDefault(LOG_LEVEL, "info");
        return new DmlEnv(logDir, level.isBlank() ? "info" : level);
    }
}
