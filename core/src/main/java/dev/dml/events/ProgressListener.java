package dev.dml.events;

import java.util.List;

/**
 * Receives a training job's progress while it runs, as DJL's {@code TrainingListener} does in
 * one process. Every method has a no-op default, so a listener overrides only what it needs.
 *
 * <p>Calls come in order (start, then steps, epochs and recoveries interleaved) from one thread,
 * the driver's reader thread in the kernel; a listener should return quickly. A listener that
 * throws loses that event only: progress never fails the job it reports on.
 */
public interface ProgressListener {

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
     * Called after each step of a model-, pipeline- or hybrid-parallel job, just after its
     * {@link #onStep}.
     *
     * @param pipeline each stage's busy and idle time, and the activation bytes moved
     */
    default void onPipeline(PipelineMetrics pipeline) {}

    /**
     * Called after each epoch.
     *
     * @param epoch the epoch's metrics
     */
    default void onEpoch(EpochMetrics epoch) {}

    /**
     * Called when the job has replaced lost workers and restored their state, before it goes on
     * from {@link Recovery#resumedFrom()}: steps after it arrive again.
     *
     * @param recovery what was lost, what was restored, and what it cost
     */
    default void onRecovery(Recovery recovery) {}

    /**
     * Called when an elastic job grew or shrank; with a shrink, just before its {@link
     * #onRecovery}.
     *
     * @param resize the sizes before and after, and the workers now
     */
    default void onResize(Resize resize) {}

    /**
     * Called when the job has something to say that is not a failure: a {@code --resume} that
     * found nothing, a checkpoint that could not be written.
     *
     * @param notice the step and the line
     */
    default void onNotice(JobNotice notice) {}

    /**
     * Called once the workers run and after each call to them, with what the job has cost so
     * far.
     *
     * @param cost the job's rate and dollars spent
     */
    default void onCost(JobCost cost) {}

    /**
     * Hands an event to the method that takes it. Every kind of {@link JobEvent} has one (a
     * test checks each), so none is dropped.
     *
     * @param event the event
     * @throws IllegalArgumentException for a kind of event this method does not know yet
     */
    default void deliver(JobEvent event) {
        if (event instanceof StepMetrics s) {
            onStep(s);
        } else if (event instanceof PipelineMetrics p) {
            onPipeline(p);
        } else if (event instanceof EpochMetrics e) {
            onEpoch(e);
        } else if (event instanceof JobStarted j) {
            onStart(j.workers());
        } else if (event instanceof Recovery r) {
            onRecovery(r);
        } else if (event instanceof Resize r) {
            onResize(r);
        } else if (event instanceof JobNotice n) {
            onNotice(n);
        } else if (event instanceof JobCost c) {
            onCost(c);
        } else {
            throw new IllegalArgumentException("No listener method takes a "
                    + event.getClass().getSimpleName() + "; add one to ProgressListener.");
        }
    }
}
