package dev.dml.ray.train.runner;

import dev.dml.events.ProgressListener;

/**
 * A listener that runs in the driver, beside the workers' calls: checkpoints ({@link
 * CheckpointListener}), the check that replicas agree ({@link DivergenceCheck}), dollars and
 * limits ({@link CostListener}), early stopping ({@link EarlyStopping}) and the job's kept
 * history ({@link JobHistory}). It hears the same {@link dev.dml.events.JobEvent}s as the
 * kernel's listeners (the live plot, the run record), through {@link JobEvents}, and adds the
 * hooks only the driver has: when to pause, what a call ran, whether to stop.
 *
 * <p>Unlike a kernel listener, one that throws fails the job: that is how the divergence check
 * and {@code --checkpoint-failure stop} end it.
 */
interface DriverListener extends ProgressListener {

    /**
     * Says how many steps may run before this listener needs the job to pause; the runner ends
     * its calls there.
     *
     * @param step the steps run so far
     * @return at least 1, or {@link Long#MAX_VALUE} when nothing is due
     */
    default long stepsUntilDue(long step) {
        return Long.MAX_VALUE;
    }

    /**
     * Called after each call to the workers, before its steps are sent as events.
     *
     * @param plan the job's workers, to ask for state
     * @param chunk what the call ran
     * @param step the steps run so far, this call's included
     */
    default void onSteps(StrategyWorkers plan, StepChunk chunk, long step) {}

    /**
     * Says why the job must stop before its next call (a budget or deadline reached); the
     * runner then writes a checkpoint and marks the job stopped.
     *
     * @param step the steps run so far
     * @return one line, options as {@code {budget}} templates; null to go on
     */
    default String stopReason(long step) {
        return null;
    }

    /**
     * Says the job has done its work before its last epoch ({@code --early-stop}): the runner
     * ends it after this epoch as if its epochs were over.
     *
     * @return whether to end now
     */
    default boolean finishedEarly() {
        return false;
    }
}
