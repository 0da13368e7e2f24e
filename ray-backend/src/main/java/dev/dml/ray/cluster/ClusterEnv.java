package dev.dml.ray.cluster;

import static dev.dml.DmlEnv.DRIVER_HEAP;
import static dev.dml.DmlEnv.JVM_OPTIONS;
import static dev.dml.DmlEnv.RAY_CPUS;
import static dev.dml.DmlEnv.RAY_OBJECT_STORE;
import static dev.dml.DmlEnv.WORKER_HEAP;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code DML_*} settings ({@link DmlEnv}) that size what dml starts, checked: the embedded
 * Ray head and the driver and worker JVMs. Each is optional; unset, Ray and the JVM choose as
 * they would.
 *
 * <ul>
 *   <li>{@value DmlEnv#RAY_CPUS}: the CPUs the embedded head offers ({@code --num-cpus}), such
 *       as 2.
 *   <li>{@value DmlEnv#RAY_OBJECT_STORE}: the embedded head's object store ({@code
 *       --object-store-memory}), a size such as {@code 100m}; at least 80 MB.
 *   <li>{@value DmlEnv#DRIVER_HEAP}: the driver JVM's heap ({@code -Xmx}), such as {@code 128m}.
 *   <li>{@value DmlEnv#WORKER_HEAP}: the heap of every worker JVM of a job, such as {@code 256m}.
 *   <li>{@value DmlEnv#JVM_OPTIONS}: options, separated by spaces, that the driver JVM and every
 *       worker JVM get after their heap (the kernel's launcher reads it too), such as {@code
 *       -XX:+UseSerialGC}.
 * </ul>
 *
 * <p>Sizes are written as for {@code java -Xmx}: digits and an optional k, m or g. Options set in
 * code ({@link ClusterSpec}, {@link DriverSpec}, an actor's own JVM options) win over these.
 * Binder's {@code start} script sets them all, so that a session fits in 2 GB.
 */
public final class ClusterEnv {

    private static final Pattern SIZE = Pattern.compile("(\\d{1,12})([kKmMgG]?)");
    private static final long MIN_OBJECT_STORE = 80L << 20;
    private static final long MIN_HEAP = 16L << 20;

    private final int rayCpus;
    private final long objectStoreBytes;
    private final String driverHeap;
    private final String workerHeap;
    private final List<String> jvmOptions;

    private ClusterEnv(int rayCpus, long objectStoreBytes, String driverHeap, String workerHeap,
            List<String> jvmOptions) {
        this.rayCpus = rayCpus;
        this.objectStoreBytes = objectStoreBytes;
        this.driverHeap = driverHeap;
        this.workerHeap = workerHeap;
        this.jvmOptions = jvmOptions;
    }

    /**
     * Reads the settings from an environment.
     *
     * @param env variables by name, such as {@link System#getenv()}
     * @return the settings
     * @throws DmlException naming the variable, when one is set to a value it cannot take
     */
    public static ClusterEnv from(Map<String, String> env) {
        DmlEnv e = DmlEnv.of(env);
        return new ClusterEnv(cpus(e), size(e, RAY_OBJECT_STORE, MIN_OBJECT_STORE, "100m"),
                heap(e, DRIVER_HEAP, "128m"), heap(e, WORKER_HEAP, "256m"), jvmOptions(e));
    }

    /**
     * Returns the CPUs the embedded head offers.
     *
     * @return the count, or 0 when unset (Ray counts the cores)
     */
    public int rayCpus() {
        return rayCpus;
    }

    /**
     * Returns the embedded head's object store size.
     *
     * @return bytes, or 0 when unset (Ray chooses)
     */
    public long objectStoreBytes() {
        return objectStoreBytes;
    }

    /**
     * Returns the options the driver JVM gets before its {@link DriverSpec#jvmOptions()}.
     *
     * @return {@code -Xmx...} and the {@value DmlEnv#JVM_OPTIONS}, or nothing when unset
     */
    public List<String> driverJvmOptions() {
        return withHeap(driverHeap);
    }

    /**
     * Returns the options every worker JVM of a job gets.
     *
     * @return {@code -Xmx...} and the {@value DmlEnv#JVM_OPTIONS}, or nothing when unset
     */
    public List<String> workerJvmOptions() {
        return withHeap(workerHeap);
    }

    private List<String> withHeap(String heap) {
        List<String> out = new ArrayList<>();
        if (heap != null) {
            out.add("-Xmx" + heap);
        }
        out.addAll(jvmOptions);
        return List.copyOf(out);
    }

    private static String value(DmlEnv env, String name) {
        return env.value(name).orElse(null);
    }

    private static int cpus(DmlEnv env) {
        String v = value(env, RAY_CPUS);
        if (v == null) {
            return 0;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new DmlException(RAY_CPUS + "=" + DmlException.literal(v) + " is not a CPU count.",
                "Set it to a whole number of CPUs, such as 2, or unset it.");
    }

    /** Words of {@value DmlEnv#JVM_OPTIONS}; each must be an option, so a typo fails here. */
    private static List<String> jvmOptions(DmlEnv env) {
        String v = value(env, JVM_OPTIONS);
        if (v == null) {
            return List.of();
        }
        List<String> words = Arrays.asList(v.trim().split("\\s+"));
        for (String w : words) {
            if (!w.startsWith("-")) {
                throw new DmlException(JVM_OPTIONS + "=" + DmlException.literal(v) + " has "
                        + DmlException.literal(w) + ", which is not a JVM option.",
                        "Write java's options separated by spaces, such as -XX:+UseSerialGC,"
                                + " or unset it.");
            }
        }
        return List.copyOf(words);
    }

    private static String heap(DmlEnv env, String name, String example) {
        return size(env, name, MIN_HEAP, example) == 0 ? null : value(env, name);
    }

    /** Bytes of a size variable, 0 when unset; {@code example} goes into the hint. */
    private static long size(DmlEnv env, String name, long min, String example) {
        String v = value(env, name);
        if (v == null) {
            return 0;
        }
        Matcher m = SIZE.matcher(v);
        if (!m.matches()) {
            throw new DmlException(name + "=" + DmlException.literal(v) + " is not a size.",
                    "Set it to a size such as " + example
                            + " (digits, then k, m or g), or unset it.");
        }
        long bytes = Long.parseLong(m.group(1)) << switch (m.group(2).toLowerCase()) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        if (bytes < min) {
            throw new DmlException(name + "=" + DmlException.literal(v)
                    + " is below the least it can be, "
                    + (min >> 20) + "m.", "Set it to " + (min >> 20) + "m or more, or unset it.");
        }
        return bytes;
    }

    @Override
    public String toString() {
        return "ClusterEnv[cpus=" + rayCpus + ", objectStore=" + objectStoreBytes + ", driverHeap="
                + driverHeap + ", workerHeap=" + workerHeap + ", jvmOptions=" + jvmOptions + "]";
    }
}
