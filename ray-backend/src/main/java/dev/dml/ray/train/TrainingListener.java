package dev.dml.ray.train;

import dev.dml.ray.collective.WorkerInfo;
import java.util.List;

/**
 * Receives a training job's progress in the kernel JVM while the job runs, as DJL's {@code
 * TrainingListener} does in one process. Every method has a no-op default, so a listener
 * overrides only what it needs.
 *
 * <p>Calls come in order (start, steps and epochs interleaved, end) from one thread, the
 * driver's reader thread; a listener should return quickly. A listener that throws loses that
 * event only: progress never fails the job it reports on.
 */
public interface TrainingListener {

    /**
     * Called once the workers have started, before the first step.
     *
     * @param workers rank, pid and host of each worker
     */
    default void onStart(List<WorkerInfo> workers) {}

    /**
     * Called after each training step (a few steps arrive together, as the driver collects
     * them).
     *
     * @param step the step's metrics
     */
    default void onStep(StepMetrics step) {}

    /**
     * Called after each epoch.
     *
     * @param epoch the epoch's metrics
     */
    default void onEpoch(EpochMetrics epoch) {}

    /**
     * Called after each step of a staged job ({@link Strategy.Staged}), just after its {@link
     * #onStep}: each stage's busy and idle (bubble) time, and the activation bytes moved.
     *
     * @param pipeline the step's pipeline metrics
     */
    default void onPipeline(PipelineMetrics pipeline) {}

    /**
     * Called once when the job ends normally or was stopped; not called when it failed.
     *
     * @param result the result
     */
    default void onEnd(TrainResult result) {}
}
