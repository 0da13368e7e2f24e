package dev.dml.events;

import java.util.List;

/**
 * What one training step did, over all workers: an event the driver sends to the kernel, where
 * listeners and the live plot read it.
 *
 * @param epoch the epoch this step belongs to, counting from 1
 * @param step the step number over the whole job, counting from 1
 * @param loss the mean loss over the global batch (the mean of the ranks' batch means)
 * @param examples the rows of the global batch
 * @param examplesPerSecond the throughput over all workers, at the slowest rank's pace
 * @param computeMillis the slowest rank's compute time: forward, backward, optimizer step
 * @param commMillis the slowest rank's time in the gradient all-reduce, waiting included
 * @param allReduceBytes the gradient bytes all ranks sent to peers in this step
 * @param interNodeBytes the part of {@code allReduceBytes} that crossed nodes; the rest moved
 *     between workers of one node
 * @param workers each worker's process at its latest report, by rank
 * @param reportedAtMillis when the last worker reported (epoch milliseconds): where the live
 *     plot's latency starts
 * @param learningRate the learning rate the step's update used ({@code --lr} as {@code
 *     --warmup} and {@code --lr-schedule} set it), NaN when not known
 */
public record StepMetrics(int epoch, long step, float loss, int examples,
        double examplesPerSecond, double computeMillis, double commMillis, long allReduceBytes,
        long interNodeBytes, List<ProcessSample> workers, long reportedAtMillis,
        double learningRate) implements JobEvent {

    /** The workers' list is immutable. */
    public StepMetrics {
        workers = List.copyOf(workers);
    }

    /** A step whose learning rate is not known yet; {@link #withLearningRate} adds it. */
    public StepMetrics(int epoch, long step, float loss, int examples, double examplesPerSecond,
            double computeMillis, double commMillis, long allReduceBytes, long interNodeBytes,
            List<ProcessSample> workers, long reportedAtMillis) {
        this(epoch, step, loss, examples, examplesPerSecond, computeMillis, commMillis,
                allReduceBytes, interNodeBytes, workers, reportedAtMillis, Double.NaN);
    }

    /**
     * Returns this step with the learning rate its update used.
     *
     * @param rate the rate
     * @return a new record
     */
    public StepMetrics withLearningRate(double rate) {
        return new StepMetrics(epoch, step, loss, examples, examplesPerSecond, computeMillis,
                commMillis, allReduceBytes, interNodeBytes, workers, reportedAtMillis, rate);
    }
}
