package dev.dml.ray.train;

/**
 * Work the driver does between a job's calls to its workers, kept out of the step loop as DJL
 * keeps cross-cutting work in {@code TrainingListener}s: checkpoints ({@link
 * CheckpointListener}), the check that replicas agree ({@link DivergenceCheck}).
 */
interface DriverListener {

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
     * Called after each call to the workers.
     *
     * @param plan the job's workers, to ask for state
     * @param chunk what the call ran
     * @param step the steps run so far, this call's included
     */
    default void onSteps(StepPlan plan, StepChunk chunk, long step) {}

    /**
     * Says why the job must stop before its next call (a budget or deadline reached).
     *
     * @param step the steps run so far
     * @return one line, options as {@code {budget}} templates; null to go on
     */
    default String stopReason(long step) {
        return null;
    }
}
