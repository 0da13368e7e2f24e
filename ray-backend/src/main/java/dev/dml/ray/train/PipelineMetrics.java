package dev.dml.ray.train;

import java.io.Serializable;
import java.util.Arrays;

/**
 * How the stages of a staged job ({@link Strategy.Staged}) spent one step: each stage's busy
 * time (forward, backward, optimizer) against its idle time (the pipeline bubble, waiting for
 * activations), and the activation bytes moved. An event sent from the driver to the kernel
 * after every step, so a plain {@link Serializable} class.
 *
 * <p>With replicas, a stage's numbers are the mean over its replicas, and its gradient
 * all-reduce counts apart from both busy and idle time.
 */
public final class PipelineMetrics implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long step;
    private final double wallMillis;
    private final double[] busyMillis;
    private final double[] idleMillis;
    private final double[] allReduceMillis;
    private final long activationBytes;
    private final int microbatches;

    PipelineMetrics(long step, double wallMillis, double[] busyMillis, double[] idleMillis,
            double[] allReduceMillis, long activationBytes, int microbatches) {
        this.step = step;
        this.wallMillis = wallMillis;
        this.busyMillis = busyMillis;
        this.idleMillis = idleMillis;
        this.allReduceMillis = allReduceMillis;
        this.activationBytes = activationBytes;
        this.microbatches = microbatches;
    }

    /**
     * Returns the step number over the whole job, as in {@link StepMetrics#step()}.
     *
     * @return 1-based global step
     */
    public long step() {
        return step;
    }

    /**
     * Returns the step's wall time, as the driver saw it.
     *
     * @return milliseconds
     */
    public double wallMillis() {
        return wallMillis;
    }

    /**
     * Returns each stage's busy time in this step: forward, backward and optimizer update.
     *
     * @return a copy, by stage
     */
    public double[] busyMillis() {
        return busyMillis.clone();
    }

    /**
     * Returns each stage's idle time in this step: wall time less busy and all-reduce time.
     *
     * @return a copy, by stage
     */
    public double[] idleMillis() {
        return idleMillis.clone();
    }

    /**
     * Returns each stage's time in the gradient all-reduce across replicas (0 without).
     *
     * @return a copy, by stage
     */
    public double[] allReduceMillis() {
        return allReduceMillis.clone();
    }

    /**
     * Returns the bytes of activations (forward) and their gradients (backward) that passed
     * between stages in this step, over all replicas.
     *
     * @return bytes
     */
    public long activationBytes() {
        return activationBytes;
    }

    /**
     * Returns the micro-batches per step.
     *
     * @return at least 1
     */
    public int microbatches() {
        return microbatches;
    }

    /**
     * Returns the stages: the length of the per-stage arrays.
     *
     * @return at least 1
     */
    public int stages() {
        return busyMillis.length;
    }

    /**
     * Returns the share of the stages' time spent idle: total idle over total busy plus idle.
     *
     * @return 0 to 1
     */
    public double bubbleFraction() {
        double busy = Arrays.stream(busyMillis).sum();
        double idle = Arrays.stream(idleMillis).sum();
        return busy + idle > 0 ? idle / (busy + idle) : 0;
    }

    /**
     * Returns the bubble of an ideal pipeline of equal stages, {@code (p-1)/(m+p-1)}.
     *
     * @return 0 to 1
     */
    public double theoreticalBubble() {
        int p = stages();
        return (p - 1.0) / (microbatches + p - 1.0);
    }

    @Override
    public String toString() {
        return String.format("step %d: wall %.1f ms, busy %s ms, idle %s ms, bubble %.2f"
                + " (ideal %.2f), %d activation bytes", step, wallMillis,
                Arrays.toString(busyMillis), Arrays.toString(idleMillis), bubbleFraction(),
                theoreticalBubble(), activationBytes);
    }
}
