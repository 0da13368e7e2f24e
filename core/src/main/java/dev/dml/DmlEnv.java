package dev.dml;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every {@code DML_*} environment variable dml reads, in one place, as JJava's {@code Env} keeps
 * its own: a constant per name, and accessors over one environment. Code takes its settings
 * from an instance ({@link #system()}, or {@link #of(Map)} in a test), never from {@code
 * System.getenv} itself. A blank value counts as unset.
 */
public final class DmlEnv {

    /** The kernel's log folder; default {@code ~/.local/share/dml/logs}. */
    public static final String LOG_DIR = "DML_LOG_DIR";
    /** The kernel log's slf4j level; default {@code info}. */
    public static final String LOG_LEVEL = "DML_LOG_LEVEL";
    /** The run store's folder; default {@code ~/.local/share/dml/runs}. */
    public static final String RUNS_DIR = "DML_RUNS_DIR";
    /** A node's shard cache folder; default {@code dml-data-cache} in {@code java.io.tmpdir}. */
    public static final String DATA_CACHE = "DML_DATA_CACHE";
    /** The CPUs the embedded Ray head offers. */
    public static final String RAY_CPUS = "DML_RAY_CPUS";
    /** The embedded Ray head's object store size. */
    public static final String RAY_OBJECT_STORE = "DML_RAY_OBJECT_STORE";
    /** The driver JVM's maximum heap. */
    public static final String DRIVER_HEAP = "DML_DRIVER_HEAP";
    /** The maximum heap of every worker JVM. */
    public static final String WORKER_HEAP = "DML_WORKER_HEAP";
    /** Options, separated by spaces, for every JVM dml starts: kernel, driver and workers. */
    public static final String JVM_OPTIONS = "DML_JVM_OPTIONS";
    /** The token the kernel hands the driver JVM it launches, for their channel. */
    public static final String DRIVER_TOKEN = "DML_DRIVER_TOKEN";
    /**
     * The prefix of a node's recorded CUDA libtorch: {@code DML_PYTORCH_LIBRARY_PATH} and its
     * siblings, DJL's names behind it.
     */
    public static final String NODE_LIBTORCH_PREFIX = "DML_";
    /** The shard cache's folder in a node's temporary folder, unless {@link #DATA_CACHE} says. */
    public static final String DEFAULT_DATA_CACHE = "dml-data-cache";
    /** The Python with PyTorch that benchmark P3 compares against. */
    public static final String BENCH_PYTHON = "DML_BENCH_PYTHON";

    /** The names above, bar the prefix. */
    public static final List<String> NAMES = List.of(LOG_DIR, LOG_LEVEL, RUNS_DIR, DATA_CACHE,
            RAY_CPUS, RAY_OBJECT_STORE, DRIVER_HEAP, WORKER_HEAP, JVM_OPTIONS, DRIVER_TOKEN,
            BENCH_PYTHON);

    private final Map<String, String> env;

    private DmlEnv(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /**
     * Returns the settings of this process's environment.
     *
     * @return the settings
     */
    public static DmlEnv system() {
        return new DmlEnv(System.getenv());
    }

    /**
     * Returns the settings of the given variables.
     *
     * @param env variables by name
     * @return the settings
     */
    public static DmlEnv of(Map<String, String> env) {
        return new DmlEnv(env);
    }

    /**
     * Returns a variable's value.
     *
     * @param name one of this class's names, or the prefix with DJL's name behind it
     * @return the value, stripped; empty when unset or blank
     * @throws IllegalArgumentException for a name this class does not declare
     */
    public Optional<String> value(String name) {
        if (!NAMES.contains(name) && !name.startsWith(NODE_LIBTORCH_PREFIX + "PYTORCH_")) {
            throw new IllegalArgumentException(name + " is no DML_* setting of DmlEnv");
        }
        String v = env.get(name);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    /**
     * Returns the kernel's log folder.
     *
     * @param home the user's home folder, under which the default lies
     * @return {@code $DML_LOG_DIR}, else {@code ~/.local/share/dml/logs}
     */
    public Path logDir(Path home) {
        return value(LOG_DIR).map(Path::of).orElse(home.resolve(".local/share/dml/logs"));
    }

    /**
     * Returns the run store's folder, where every training job is recorded.
     *
     * @param home the user's home folder, under which the default lies
     * @return {@code $DML_RUNS_DIR}, else {@code ~/.local/share/dml/runs}
     */
    public Path runsDir(Path home) {
        return value(RUNS_DIR).map(Path::of).orElse(home.resolve(".local/share/dml/runs"));
    }

    /**
     * Returns the kernel log's level.
     *
     * @return {@code $DML_LOG_LEVEL}, else {@code info}
     */
    public String logLevel() {
        return value(LOG_LEVEL).orElse("info");
    }

    /**
     * Returns a node's shard cache folder.
     *
     * @param tmp the node's temporary folder, in which the default lies
     * @return {@code $DML_DATA_CACHE}, else {@code dml-data-cache} in {@code tmp}
     */
    public Path dataCache(Path tmp) {
        // per user: another user's entries are private to them (0600), so never shared
        return value(DATA_CACHE).map(Path::of).orElse(tmp.resolve(DEFAULT_DATA_CACHE + "-"
                + System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_")));
    }
}
