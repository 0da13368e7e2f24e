package dev.dml.ray.train;

import java.io.Serializable;
import java.util.Arrays;

/**
 * What one training step did, over all workers: an event sent from the driver to the kernel, so
 * a plain {@link Serializable} class.
 */
public final class StepMetrics implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int epoch;
    private final long step;
    private final float loss;
    private final int examples;
    private final double examplesPerSecond;
    private final double computeMillis;
    private final double commMillis;
    private final long allReduceBytes;
    private final double[] cpuPercent;
    private final long[] heapBytes;
    private final long[] rssBytes;
    private final long reportedAtMillis;

    StepMetrics(int epoch, long step, float loss, int examples, double examplesPerSecond,
            double computeMillis, double commMillis, long allReduceBytes, double[] cpuPercent,
            long[] heapBytes, long[] rssBytes) {
        this(epoch, step, loss, examples, examplesPerSecond, computeMillis, commMillis,
                allReduceBytes, cpuPercent, heapBytes, rssBytes, System.currentTimeMillis());
    }

    StepMetrics(int epoch, long step, float loss, int examples, double examplesPerSecond,
            double computeMillis, double commMillis, long allReduceBytes, double[] cpuPercent,
            long[] heapBytes, long[] rssBytes, long reportedAtMillis) {
        this.epoch = epoch;
        this.step = step;
        this.loss = loss;
        this.examples = examples;
        this.examplesPerSecond = examplesPerSecond;
        this.computeMillis = computeMillis;
        this.commMillis = commMillis;
        this.allReduceBytes = allReduceBytes;
        this.cpuPercent = cpuPercent;
        this.heapBytes = heapBytes;
        this.rssBytes = rssBytes;
        this.reportedAtMillis = reportedAtMillis;
    }

    /**
     * Returns when the last worker reported this step (its wall clock, in epoch milliseconds):
     * where the live plot's latency starts.
     *
     * @return epoch milliseconds
     */
    public long reportedAtMillis() {
        return reportedAtMillis;
    }

    /**
     * Returns the epoch this step belongs to.
     *
     * @return 0-based epoch
     */
    public int epoch() {
        return epoch;
    }

    /**
     * Returns the step number over the whole job.
     *
     * @return 1-based global step
     */
    public long step() {
        return step;
    }

    /**
     * Returns the mean loss over the global batch (the mean of the ranks' batch means).
     *
     * @return the loss
     */
    public float loss() {
        return loss;
    }

    /**
     * Returns the rows of the global batch (batch size times workers).
     *
     * @return the row count
     */
    public int examples() {
        return examples;
    }

    /**
     * Returns the training throughput over all workers, at the slowest rank's pace.
     *
     * @return rows per second
     */
    public double examplesPerSecond() {
        return examplesPerSecond;
    }

    /**
     * Returns the slowest rank's compute time: forward, backward, optimizer step.
     *
     * @return milliseconds
     */
    public double computeMillis() {
        return computeMillis;
    }

    /**
     * Returns the slowest rank's time in the gradient all-reduce (waiting for peers included).
     *
     * @return milliseconds
     */
    public double commMillis() {
        return commMillis;
    }

    /**
     * Returns the gradient bytes all ranks sent to peers in this step's all-reduce.
     *
     * @return bytes
     */
    public long allReduceBytes() {
        return allReduceBytes;
    }

    /**
     * Returns each worker's process CPU use since its previous report, by rank (100 = one core).
     *
     * @return a copy, by rank
     */
    public double[] cpuPercent() {
        return cpuPercent.clone();
    }

    /**
     * Returns each worker's used Java heap at its latest report, by rank.
     *
     * @return a copy, in bytes
     */
    public long[] heapBytes() {
        return heapBytes.clone();
    }

    /**
     * Returns each worker's resident set size (VmRSS) at its latest report, by rank.
     *
     * @return a copy, in bytes; 0 where /proc is not readable
     */
    public long[] rssBytes() {
        return rssBytes.clone();
    }

    @Override
    public String toString() {
        return String.format("step %d (epoch %d): loss %.5f, %.0f examples/s, compute %.1f ms,"
                + " all-reduce %.1f ms (%d bytes), cpu%% %s", step, epoch, loss,
                examplesPerSecond, computeMillis, commMillis, allReduceBytes,
                Arrays.toString(cpuPercent));
    }
}
