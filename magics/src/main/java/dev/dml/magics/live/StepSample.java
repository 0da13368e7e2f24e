package dev.dml.magics.live;
/** TEMP */
public record StepSample(int epoch, long step, double loss, double examplesPerSecond,
        double computeMillis, double commMillis, long allReduceBytes,
        double[] cpuPercent, long[] heapBytes, long[] rssBytes, double[] gpuPercent,
        long reportedAtMillis) {}
