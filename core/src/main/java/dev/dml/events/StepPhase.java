package dev.dml.events;

/**
 * The parts a worker's training step is timed in ({@link ProcessSample#stepPhaseMillis}), as
 * DeepSpeed's wall-clock breakdown times forward, backward and step: what a step's time goes to
 * on the worker, beside the all-reduce that {@link StepMetrics#commMillis()} counts. Time in
 * none of them (freeing a step's arrays, the step loop's own work) is the step's rest.
 */
public enum StepPhase {
    /** Taking the step's rows from the worker's shard: a slice, or the shuffled gather. */
    BATCH,
    /** The model's forward pass, the gradients' zeroing included. */
    FORWARD,
    /** The loss and the read of its value, the one wait for the device a step needs. */
    LOSS,
    /** The backward pass, whole or bucket by bucket. */
    BACKWARD,
    /** Gradients and parameters copied between the engine's tensors and flat arrays. */
    COPIES,
    /** The optimizer's update of the parameters. */
    OPTIMIZER
}
