package dev.dml.ray.cluster;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.module.ModuleFinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What every JVM of a job gets, the driver's and each worker's: JVM options and environment. */
public final class JobJvms {

    private JobJvms() {}

    /** Lets Java 17 reflect into JDK types, as Ray's serializer (FST) needs. */
    static final List<String> ADD_OPENS = List.of(
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.math=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED");

    /** The Vector API's module, in which a worker's Adam runs (dev.dml.ray.model.VectorAdam). */
    static final String VECTOR_MODULE = "jdk.incubator.vector";

    /**
     * Returns the option that resolves the Vector API's module in a worker, where this JVM's
     * runtime has it: a worker's optimizer then updates in SIMD lanes, and without it in its
     * scalar loop, with the same results. A runtime without the module (a {@code jlink}
     * image) would refuse the option and not start.
     *
     * @return {@code --add-modules=jdk.incubator.vector}, or nothing
     */
    static List<String> vectorModule() {
        return ModuleFinder.ofSystem().find(VECTOR_MODULE).isPresent()
                ? List.of("--add-modules=" + VECTOR_MODULE) : List.of();
    }

    /**
     * Environment variables that the driver process and every worker process of its job get,
     * unless this JVM's environment already sets them. {@code THP_MEM_ALLOC_ENABLE=1} makes
     * PyTorch back large CPU tensors with transparent huge pages: a freshly allocated tensor is
     * then written (decoded into) without a page fault per 4 KiB, about three times faster where
     * the kernel's THP mode is {@code madvise}.
     *
     * <p>{@code MALLOC_ARENA_MAX=2}: glibc gives each thread that allocates an arena of its
     * own, up to 8 per core, and keeps what was freed in each; a JVM running Ray's native
     * threads beside its own then grows by a few MB an hour with no more in use (the S1 soak).
     * Two arenas keep that memory shared and reusable, for a few percent of allocation speed.
     *
     * <p>{@code MALLOC_TRIM_THRESHOLD_} and {@code MALLOC_MMAP_THRESHOLD_}: a training step
     * allocates and frees the same tens of MB of tensors every time. glibc's default trims the
     * freed top of an arena after each step (and maps large blocks afresh), so the next step
     * faults every page in again: a 1-worker job's worker took about 50,000 page faults a
     * second and its MLP backward ran 10-15 % slower than the same step alone (P15). Blocks
     * under 32 MB now come from the arenas and stay there; the JVM still hands freed memory
     * back every {@value #TRIM_NATIVE_HEAP_MILLIS} ms ({@link #trimNativeHeap}).
     */
    public static final Map<String, String> WORKER_ENV = Map.of(
            "THP_MEM_ALLOC_ENABLE", "1", "MALLOC_ARENA_MAX", "2",
            "MALLOC_TRIM_THRESHOLD_", String.valueOf(1L << 30),
            "MALLOC_MMAP_THRESHOLD_", String.valueOf(32 << 20));

    /** How often a job's JVMs give freed native memory back to the system (milliseconds). */
    static final int TRIM_NATIVE_HEAP_MILLIS = 30_000;

    /**
     * Returns the options that make a job's JVM return the native memory glibc keeps after it
     * is freed ({@code malloc_trim} every {@value #TRIM_NATIVE_HEAP_MILLIS} ms), where this JVM
     * knows the flag (JDK 17.0.9 and later): the driver and the embedded head's workers run
     * this JVM's {@code java}, and an option an older JVM does not know would stop it starting.
     *
     * @return {@code -XX:TrimNativeHeapInterval=...}, or nothing on a JVM without it
     */
    static List<String> trimNativeHeap() {
        try {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption("TrimNativeHeapInterval");
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return List.of();
        }
        return List.of("-XX:TrimNativeHeapInterval=" + TRIM_NATIVE_HEAP_MILLIS);
    }

    /** The driver's initial heap: about what it holds live, so the heap grows only if used. */
    static final String DRIVER_INITIAL_HEAP = "-Xms32m";

    /**
     * Returns the heap options the driver JVM gets before the user's. The driver is a control
     * process holding about 50 MB live. With the JVM's defaults (G1, an initial heap of 1/64 of
     * the machine's memory) it touched new pages of that heap for hours, a few MB an hour (the
     * S1 soak): promoted garbage crept through a large old space before G1 marked it. The
     * serial collector in a small initial heap reuses one young space and compacts the old one
     * in place. Its heap is touched as it is committed ({@code AlwaysPreTouch}): promoted garbage
     * then creeps through pages already counted, and the driver's memory changes only when a
     * full collection resizes the heap (the serial old space alone grew it 3 MB an hour). A
     * user option that picks a collector replaces ours (two would stop the JVM starting); a
     * later {@code -Xms} wins.
     *
     * @param userOptions the options the driver gets after these
     * @return the collector and initial heap options
     */
    static List<String> driverHeap(List<String> userOptions) {
        boolean ownCollector = userOptions.stream()
                .anyMatch(o -> o.matches("-XX:\\+Use\\w*GC"));
        // a user's heap cap below our initial heap would stop the JVM starting
        boolean smallCap = userOptions.stream().anyMatch(
                o -> o.matches("-Xmx\\d+[kKmMgG]?") && bytes(o.substring(4)) < 32L << 20);
        List<String> out = new ArrayList<>();
        if (!ownCollector) {
            out.add("-XX:+UseSerialGC");
        }
        if (!smallCap) {
            out.add(DRIVER_INITIAL_HEAP);
        }
        out.add("-XX:+AlwaysPreTouch");
        return List.copyOf(out);
    }

    /** A java size ({@code 512k}, {@code 64m}, {@code 1g}, or bytes) in bytes. */
    private static long bytes(String size) {
        char unit = Character.toLowerCase(size.charAt(size.length() - 1));
        int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : 0;
        String digits = shift == 0 ? size : size.substring(0, size.length() - 1);
        return Long.parseLong(digits) << shift;
    }

    /**
     * Returns the value of each {@link #WORKER_ENV} variable that a driver or worker gets: this
     * JVM's own value where it has one, else the default.
     *
     * @return the variables, by name
     */
    static Map<String, String> workerEnv() {
        Map<String, String> out = new TreeMap<>();
        WORKER_ENV.forEach((k, v) -> out.put(k, System.getenv().getOrDefault(k, v)));
        return out;
    }
}
