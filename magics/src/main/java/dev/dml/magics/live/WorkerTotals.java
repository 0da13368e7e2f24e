package dev.dml.magics.live;

import dev.dml.events.WorkerInfo;
import dev.dml.events.ProcessSample;
import java.util.ArrayList;
import java.util.Arrays;
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
    private double[] cpuSum = new double[0];
    private long[] cpuCount = new long[0];
    private long[] peakRss = new long[0];
    private long[] peakHeap = new long[0];
    private double[] gpuSum = new double[0];
    private long[] gpuCount = new long[0];
    private long[] peakGpuMemory = new long[0];
    private long[] storageRetries = new long[0];

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
        grow(n);
        for (int i = 0; i < n; i++) {
            ProcessSample p = samples.get(i);
            cpu[i] = p.cpuPercent();
            rss[i] = p.rssBytes();
            heap[i] = p.heapBytes();
            if (gpus) {
                gpu[i] = p.gpuPercent();
            }
            if (p.hasGpu() && Double.isFinite(p.gpuPercent())) {
                gpuSum[i] += p.gpuPercent();
                gpuCount[i]++;
            }
            peakGpuMemory[i] = Math.max(peakGpuMemory[i], p.gpuMemoryBytes());
            if (Double.isFinite(p.cpuPercent())) {
                cpuSum[i] += p.cpuPercent();
                cpuCount[i]++;
            }
            peakRss[i] = Math.max(peakRss[i], p.rssBytes());
            peakHeap[i] = Math.max(peakHeap[i], p.heapBytes());
            storageRetries[i] = Math.max(storageRetries[i], p.storageRetries());
        }
    }

    private void grow(int n) {
        if (n > cpuSum.length) {
            cpuSum = Arrays.copyOf(cpuSum, n);
            cpuCount = Arrays.copyOf(cpuCount, n);
            peakRss = Arrays.copyOf(peakRss, n);
            peakHeap = Arrays.copyOf(peakHeap, n);
            gpuSum = Arrays.copyOf(gpuSum, n);
            gpuCount = Arrays.copyOf(gpuCount, n);
            storageRetries = Arrays.copyOf(storageRetries, n);
            int from = peakGpuMemory.length;
            peakGpuMemory = Arrays.copyOf(peakGpuMemory, n);
            Arrays.fill(peakGpuMemory, from, n, -1); // no GPU until one reports
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
        int n = Math.max(workers.size(), cpuSum.length);
        List<WorkerStats> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            WorkerInfo w = i < workers.size() ? workers.get(i) : new WorkerInfo(i, n, 0, "?");
            boolean seen = i < cpuSum.length;
            double meanCpu = seen && cpuCount[i] > 0 ? cpuSum[i] / cpuCount[i] : Double.NaN;
            double meanGpu = seen && gpuCount[i] > 0 ? gpuSum[i] / gpuCount[i] : Double.NaN;
            out.add(new WorkerStats(w.rank(), w.nodeIp(), w.pid(), meanCpu,
                    seen ? peakRss[i] : 0, seen ? peakHeap[i] : 0, meanGpu,
                    seen ? peakGpuMemory[i] : -1, seen ? storageRetries[i] : 0));
        }
        return out;
    }
}
