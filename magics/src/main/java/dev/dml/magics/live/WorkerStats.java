package dev.dml.magics.live;

/**
 * One worker's resource use over a whole job, for the summary table.
 *
 * @param rank the worker's rank
 * @param node the host the worker ran on
 * @param pid the worker's process id
 * @param meanCpuPercent mean process CPU use over the reported steps, 100 = one core
 * @param peakRssBytes the largest resident set size reported
 * @param peakHeapBytes the largest used Java heap reported
 */
public record WorkerStats(int rank, String node, long pid, double meanCpuPercent,
        long peakRssBytes, long peakHeapBytes) {
}
