package dev.dml.ray.train;

import java.io.Serializable;

/**
 * What one rank did in one {@link TrainWorker#trainSteps} call, step by step, and how its
 * process looked at the end; crosses Ray, so a plain Serializable class.
 */
public final class ChunkReport implements Serializable {

    private static final long serialVersionUID = 1L;

    final float[] losses;
    final long[] computeNanos;
    final long[] commNanos;
    final long[] bytesSent;
    final long parameterHash;
    final double cpuPercent;
    final long heapBytes;
    final long rssBytes;
    /** Wall clock when the worker made this report, for the live plot's latency. */
    final long reportedAtMillis = System.currentTimeMillis();

    ChunkReport(float[] losses, long[] computeNanos, long[] commNanos, long[] bytesSent,
            long parameterHash, double cpuPercent, long heapBytes, long rssBytes) {
        this.losses = losses;
        this.computeNanos = computeNanos;
        this.commNanos = commNanos;
        this.bytesSent = bytesSent;
        this.parameterHash = parameterHash;
        this.cpuPercent = cpuPercent;
        this.heapBytes = heapBytes;
        this.rssBytes = rssBytes;
    }
}
