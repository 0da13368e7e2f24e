package dev.dml.magics.live;

/**
 * What the job reports after one training step, across all workers. Arrays are indexed by
 * worker rank and copied on construction; {@code null} arrays read as empty.
 *
 * @param epoch the epoch this step belongs to, counting from 1
 * @param step steps completed in the whole job so far, counting from 1
 * @param loss the training loss of this step (mean over workers)
 * @param examplesPerSecond examples per second of this step, all workers together
 * @param computeMillis time spent computing this step
 * @param commMillis time spent communicating (all-reduce) in this step
 * @param allReduceBytes bytes the all-reduce moved in this step
 * @param cpuPercent each worker's process CPU use, 100 = one core
 * @param heapBytes each worker's used Java heap
 * @param rssBytes each worker's resident set size
 * @param gpuPercent each worker's GPU use; empty when the job has no GPU
 * @param reportedAtMillis wall-clock time when the worker reported it; 0 = unknown
 */
public record StepSample(int epoch, long step, double loss, double examplesPerSecond,
        double computeMillis, double commMillis, long allReduceBytes,
        double[] cpuPercent, long[] heapBytes, long[] rssBytes, double[] gpuPercent,
        long reportedAtMillis) {

    /** Copies the arrays so later changes by the caller do not reach the dashboard. */
    public StepSample {
        cpuPercent = cpuPercent == null ? new double[0] : cpuPercent.clone();
        heapBytes = heapBytes == null ? new long[0] : heapBytes.clone();
        rssBytes = rssBytes == null ? new long[0] : rssBytes.clone();
        gpuPercent = gpuPercent == null ? new double[0] : gpuPercent.clone();
    }
}
