package dev.dml.magics.live;

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

    /** Takes the per-worker arrays of one step; arrays may differ in length. */
    void add(StepSample s) {
        if (s.cpuPercent().length > 0) {
            cpu = s.cpuPercent();
        }
        if (s.gpuPercent().length > 0) {
            gpu = s.gpuPercent();
        }
        if (s.rssBytes().length > 0) {
            rss = s.rssBytes();
        }
        if (s.heapBytes().length > 0) {
            heap = s.heapBytes();
        }
        grow(Math.max(s.cpuPercent().length,
                Math.max(s.rssBytes().length, s.heapBytes().length)));
        for (int i = 0; i < s.cpuPercent().length; i++) {
            if (Double.isFinite(s.cpuPercent()[i])) {
                cpuSum[i] += s.cpuPercent()[i];
                cpuCount[i]++;
            }
        }
        for (int i = 0; i < s.rssBytes().length; i++) {
            peakRss[i] = Math.max(peakRss[i], s.rssBytes()[i]);
        }
        for (int i = 0; i < s.heapBytes().length; i++) {
            peakHeap[i] = Math.max(peakHeap[i], s.heapBytes()[i]);
        }
    }

    private void grow(int n) {
        if (n > cpuSum.length) {
            cpuSum = Arrays.copyOf(cpuSum, n);
            cpuCount = Arrays.copyOf(cpuCount, n);
            peakRss = Arrays.copyOf(peakRss, n);
            peakHeap = Arrays.copyOf(peakHeap, n);
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
    List<WorkerStats> stats(List<WorkerRow> workers) {
        int n = Math.max(workers.size(), cpuSum.length);
        List<WorkerStats> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            WorkerRow w = i < workers.size() ? workers.get(i) : new WorkerRow(i, "?", 0);
            boolean seen = i < cpuSum.length;
            double meanCpu = seen && cpuCount[i] > 0 ? cpuSum[i] / cpuCount[i] : Double.NaN;
            out.add(new WorkerStats(w.rank(), w.node(), w.pid(), meanCpu,
                    seen ? peakRss[i] : 0, seen ? peakHeap[i] : 0));
        }
        return out;
    }
}
