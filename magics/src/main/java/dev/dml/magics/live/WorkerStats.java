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
 * @param meanGpuPercent the mean utilisation of the worker's GPU; NaN without a GPU
 * @param peakGpuMemoryBytes the most memory in use on the worker's GPU; -1 without a GPU
 */
public record WorkerStats(int rank, String node, long pid, double meanCpuPercent,
        long peakRssBytes, long peakHeapBytes, double meanGpuPercent, long peakGpuMemoryBytes) {

    /** A worker without a GPU. */
    public WorkerStats(int rank, String node, long pid, double meanCpuPercent, long peakRssBytes,
            long peakHeapBytes) {
        this(rank, node, pid, meanCpuPercent, peakRssBytes, peakHeapBytes, Double.NaN, -1);
    }

    /** @return whether the worker reported a GPU */
    public boolean hasGpu() {
        return peakGpuMemoryBytes >= 0;
    }
}
