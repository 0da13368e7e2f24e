package dev.dml.magics.live;
/** TEMP */
public record WorkerStats(int rank, String node, long pid, double meanCpuPercent,
        long peakRssBytes, long peakHeapBytes) {}
