package dev.dml.ray.pipeline;

import java.io.Serializable;

/** What one stage actor did in one step, and how its process looks; crosses Ray. */
public final class StageReport implements Serializable {

    private static final long serialVersionUID = 1L;

    private final float loss;
    private final long busyNanos;
    private final long cpuNanos;
    private final long allReduceNanos;
    private final long allReduceBytes;
    private final long activationBytes;
    private final long parameterHash;
    private final double cpuPercent;
    private final long heapBytes;
    private final long rssBytes;

    StageReport(float loss, long busyNanos, long cpuNanos, long allReduceNanos,
            long allReduceBytes, long activationBytes, long parameterHash, double cpuPercent,
            long heapBytes, long rssBytes) {
        this.loss = loss;
        this.busyNanos = busyNanos;
        this.cpuNanos = cpuNanos;
        this.allReduceNanos = allReduceNanos;
        this.allReduceBytes = allReduceBytes;
        this.activationBytes = activationBytes;
        this.parameterHash = parameterHash;
        this.cpuPercent = cpuPercent;
        this.heapBytes = heapBytes;
        this.rssBytes = rssBytes;
    }

    /** Returns the step's mean loss over the micro-batches. @return the loss; NaN but last */
    public float loss() {
        return loss;
    }

    /** Returns the wall time in forward, backward and update. @return nanoseconds */
    public long busyNanos() {
        return busyNanos;
    }

    /** Returns the CPU time of the same work, on the task threads. @return nanoseconds */
    public long cpuNanos() {
        return cpuNanos;
    }

    /** Returns the time in the gradient all-reduce with the replicas. @return nanoseconds */
    public long allReduceNanos() {
        return allReduceNanos;
    }

    /** Returns the bytes this actor sent in the all-reduce. @return bytes */
    public long allReduceBytes() {
        return allReduceBytes;
    }

    /** Returns the activation and gradient bytes this stage handed on. @return bytes */
    public long activationBytes() {
        return activationBytes;
    }

    /** Returns a hash of the stage's parameters after the step. @return the hash */
    public long parameterHash() {
        return parameterHash;
    }

    /** Returns the process's CPU use since its previous report. @return percent */
    public double cpuPercent() {
        return cpuPercent;
    }

    /** Returns the used heap. @return bytes */
    public long heapBytes() {
        return heapBytes;
    }

    /** Returns the resident set size. @return bytes */
    public long rssBytes() {
        return rssBytes;
    }
}
