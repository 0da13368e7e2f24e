package dev.dml.events;

import java.io.Serializable;
import java.util.List;

/**
 * How the stages of a model-, pipeline- or hybrid-parallel job spent one step: an event sent
 * after every step's {@link StepMetrics}. With replicas, a stage's times are the means over its
 * replicas and its bytes their sum.
 *
 * @param step the step number over the whole job, as in {@link StepMetrics#step()}
 * @param wallMillis the step's wall time, as the driver saw it
 * @param microbatches the micro-batches per step
 * @param stages each stage's time and traffic, by stage
 */
public record PipelineMetrics(long step, double wallMillis, int microbatches,
        List<StageTime> stages) implements JobEvent {

    /** The stages' list is immutable. */
    public PipelineMetrics {
        stages = List.copyOf(stages);
    }

    /**
     * One stage's share of a step.
     *
     * @param busyMillis forward, backward and optimizer time
     * @param idleMillis waiting: the step's wall time less busy and all-reduce time (the bubble)
     * @param allReduceMillis the gradient all-reduce across replicas; 0 without replicas
     * @param activationBytes activations and their gradients this stage sent on
     */
    public record StageTime(double busyMillis, double idleMillis, double allReduceMillis,
            long activationBytes) implements Serializable {}

    /**
     * Returns the share of the stages' time spent idle: total idle over busy plus idle.
     *
     * @return 0 to 1
     */
    public double bubbleFraction() {
        double busy = stages.stream().mapToDouble(StageTime::busyMillis).sum();
        double idle = stages.stream().mapToDouble(StageTime::idleMillis).sum();
        return busy + idle > 0 ? idle / (busy + idle) : 0;
    }

    /**
     * Returns the bubble of an ideal pipeline of equal stages, {@code (p-1)/(m+p-1)}.
     *
     * @return 0 to 1
     */
    public double theoreticalBubble() {
        int p = stages.size();
        return (p - 1.0) / (microbatches + p - 1.0);
    }

    /**
     * Returns the bytes all stages sent on in this step.
     *
     * @return bytes
     */
    public long activationBytes() {
        return stages.stream().mapToLong(StageTime::activationBytes).sum();
    }
}
