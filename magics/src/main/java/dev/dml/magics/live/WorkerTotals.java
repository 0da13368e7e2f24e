package dev.dml.magics.live;

import dev.dml.events.WorkerInfo;
import dev.dml.events.ProcessSample;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-worker resource figures over a job: the latest of each (for the bars) and the mean CPU
 * and peak memory (for the summary). Not thread-safe; {@link LiveDashboard} guards it.
 */
final class WorkerTotals {

    private double[] cpu = new double[0];
    private double[] gpu = new double[0];
    private long[] rss = new long[0];
    private long[] heap = new long[0];
    /** Each rank that has reported, by rank. */
    private final List<Totals> ranks = new ArrayList<>();

    /** One worker's sums and peaks over the job. */
    private static final class Totals {
        double cpuSum;
        long cpuCount;
        double gpuSum;
        long gpuCount;
        long peakRss;
        long peakHeap;
        long peakGpuMemory = -1; // no GPU until one reports
        long storageRetries;

        void add(ProcessSample p) {
            if (p.hasGpu() && Double.isFinite(p.gpuPercent())) {
                gpuSum += p.gpuPercent();
                gpuCount++;
            }
            peakGpuMemory = Math.max(peakGpuMemory, p.gpuMemoryBytes());
            if (Double.isFinite(p.cpuPercent())) {
                cpuSum += p.cpuPercent();
                cpuCount++;
            }
            peakRss = Math.max(peakRss, p.rssBytes());
            peakHeap = Math.max(peakHeap, p.heapBytes());
            storageRetries = Math.max(storageRetries, p.storageRetries());
        }
    }

    /** Takes the workers' samples of one step, by rank. */
    void add(List<ProcessSample> samples) {
        int n = samples.size();
        if (n == 0) {
            return;
        }
        cpu = new double[n];
        rss = new long[n];
        heap = new long[n];
        boolean gpus = samples.stream().anyMatch(ProcessSample::hasGpu);
        gpu = gpus ? new double[n] : new double[0];
        while (ranks.size() < n) {
            ranks.add(new Totals());
        }
        for (int i = 0; i < n; i++) {
            ProcessSample p = samples.get(i);
            cpu[i] = p.cpuPercent();
            rss[i] = p.rssBytes();
            heap[i] = p.heapBytes();
            if (gpus) {
                gpu[i] = p.gpuPercent();
            }
            ranks.get(i).add(p);
        }
    }

    double[] latestCpu() {
        return cpu.clone();
    }

    double[] latestGpu() {
        return gpu.clone();
    }

    long[] latestRss() {
        return rss.clone();
    }

    long[] latestHeap() {
        return heap.clone();
    }

    /** One row per worker: the known workers, plus any rank that reported without one. */
    List<WorkerStats> stats(List<WorkerInfo> workers) {
        int n = Math.max(workers.size(), ranks.size());
        List<WorkerStats> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            WorkerInfo w = i < workers.size() ? workers.get(i) : new WorkerInfo(i, n, 0, "?");
            Totals t = i < ranks.size() ? ranks.get(i) : new Totals();
            double meanCpu = t.cpuCount > 0 ? t.cpuSum / t.cpuCount : Double.NaN;
            double meanGpu = t.gpuCount > 0 ? t.gpuSum / t.gpuCount : Double.NaN;
            out.add(new WorkerStats(w.rank(), w.nodeIp(), w.pid(), meanCpu, t.peakRss,
                    t.peakHeap, meanGpu, t.peakGpuMemory, t.storageRetries));
        }
        return out;
    }
}
