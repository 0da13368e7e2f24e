package dev.dml.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The CPU each thread of a process has used, grouped by the thread's kind, from {@code
 * /proc/PID/task}: the stepping thread, the JIT compilers, the garbage collector, the JVM's own
 * threads, dml's threads ({@code dml-…}) and the rest (Ray's core worker, gRPC, libtorch). Two
 * readings a while apart show what the other threads cost while the steps ran.
 */
final class ThreadCpu {

    private static final double TICKS_PER_SECOND = 100.0;

    private ThreadCpu() {}

    /**
     * Reads the CPU ticks of every thread of a process, by thread name.
     *
     * @param pid the process
     * @return ticks (utime + stime) per thread name with its id, empty if unreadable
     */
    static Map<String, Long> read(long pid) {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                    out.put(name + " [" + t.getFileName() + "]",
                            Long.parseLong(f[11]) + Long.parseLong(f[12]));
                } catch (IOException | RuntimeException gone) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return out;
    }

    /**
     * Reads the minor page faults a process has taken: pages the kernel mapped in on first
     * touch, as a freshly allocated tensor's are.
     *
     * @param pid the process
     * @return the count since it started, or -1 if unreadable
     */
    static long minorFaults(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).trim()
                    .split("\\s+")[7]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The CPU percent of each kind of thread between two readings.
     *
     * @param before the earlier {@link #read}
     * @param after the later one
     * @param seconds the wall time between them
     * @return percent of one core per kind, the busiest thread as "stepping thread"
     */
    static Map<String, Double> percentByKind(Map<String, Long> before, Map<String, Long> after,
            double seconds) {
        String busiest = null;
        long most = -1;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (d > most) {
                most = d;
                busiest = e.getKey();
            }
        }
        Map<String, Double> kinds = new LinkedHashMap<>();
        for (String k : new String[] {"stepping thread", "JIT compilers", "garbage collector",
            "JVM (VM thread, periodic tasks)", "dml threads", "other (Ray core worker, gRPC,"
                    + " libtorch)"}) {
            kinds.put(k, 0.0);
        }
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            String kind = e.getKey().equals(busiest) ? "stepping thread" : kind(e.getKey());
            kinds.merge(kind, 100.0 * d / TICKS_PER_SECOND / seconds, Double::sum);
        }
        kinds.replaceAll((k, v) -> TrialTimes.round(v, 1));
        return kinds;
    }

    private static String kind(String thread) {
        if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) {
            return "JIT compilers";
        }
        if (thread.startsWith("GC ") || thread.startsWith("G1 ")) {
            return "garbage collector";
        }
        if (thread.startsWith("VM ") || thread.startsWith("Signal") || thread.startsWith("Common")
                || thread.startsWith("Service") || thread.startsWith("Monitor")) {
            return "JVM (VM thread, periodic tasks)";
        }
        if (thread.startsWith("dml-")) {
            return "dml threads";
        }
        return "other (Ray core worker, gRPC, libtorch)";
    }
}
