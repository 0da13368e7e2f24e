package dev.dml.ray.train.device;

import dev.dml.events.ProcessSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Samples this process: CPU use since the previous sample (from {@code /proc/self/stat}), used
 * heap, and resident memory ({@code VmRSS} of {@code /proc/self/status}). Off Linux the CPU and
 * RSS read as 0. On a worker that trains on a GPU, also that GPU's utilisation and memory in
 * use, as its background sampler last saw them ({@link GpuSampler}); a CPU worker's samples
 * have none. Used by every kind of training worker.
 */
public final class ProcessSampler {

    /** Linux's USER_HZ, the unit of utime and stime; 100 on every common kernel. */
    private static final double TICKS_PER_SECOND = 100.0;

    private long lastTicks = cpuTicks();
    private long lastNanos = System.nanoTime();
    private final Supplier<NvidiaSmi.Gpu> gpu;

    /** Creates a sampler; its first CPU figure covers the time since now. */
    public ProcessSampler() {
        this(() -> null);
    }

    /** Creates a sampler that adds the GPU {@code gpu} reports (null: no GPU). */
    public ProcessSampler(Supplier<NvidiaSmi.Gpu> gpu) {
        this.gpu = gpu;
    }

    /**
     * Takes a sample.
     *
     * @return CPU use since the previous sample (NaN where /proc is unreadable), used heap and
     *     resident memory (0 off Linux)
     */
    public ProcessSample sample() {
        long ticks = cpuTicks();
        long now = System.nanoTime();
        double seconds = (now - lastNanos) / 1e9;
        double cpu = seconds <= 0 || ticks < 0 || lastTicks < 0 ? Double.NaN
                : 100.0 * (ticks - lastTicks) / TICKS_PER_SECOND / seconds;
        lastTicks = ticks;
        lastNanos = now;
        Runtime rt = Runtime.getRuntime();
        long heap = rt.totalMemory() - rt.freeMemory();
        NvidiaSmi.Gpu g = gpu.get();
        ProcessSample p = g == null ? new ProcessSample(cpu, heap, rss())
                : new ProcessSample(cpu, heap, rss(), g.utilization(), g.memoryUsedBytes());
        return p.withStorageRetries(dev.dml.ray.data.store.DataStore.retries());
    }

    /** utime + stime of this process, or -1 when /proc is unreadable. */
    static long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // the command name (field 2) may hold spaces: fields start after the last ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** VmRSS in bytes, or 0 when /proc is unreadable. */
    static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return 0;
    }
}
