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
 * @param storageRetries object-store (S3) requests the worker tried again after a transient
 *     failure
 */
public record WorkerStats(int rank, String node, long pid, double meanCpuPercent,
        long peakRssBytes, long peakHeapBytes, double meanGpuPercent, long peakGpuMemoryBytes,
        long storageRetries) {

    /** A worker that retried no object-store request. */
    public WorkerStats(int rank, String node, long pid, double meanCpuPercent, long peakRssBytes,
            long peakHeapBytes, double meanGpuPercent, long peakGpuMemoryBytes) {
        this(rank, node, pid, meanCpuPercent, peakRssBytes, peakHeapBytes, meanGpuPercent,
                peakGpuMemoryBytes, 0);
    }

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
