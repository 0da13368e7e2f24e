package dev.dml.ray.train.worker;

import dev.dml.events.ProcessSample;
import dev.dml.ray.train.device.WorkerReport;

/**
 * What a {@link StepStrategy}'s run of steps did on one worker, step by step.
 *
 * @param steps the steps completed
 * @param stopped whether it stopped early on a pre-emption notice
 * @param losses each step's loss (NaN where the stage has none)
 * @param compute each step's time computing, in nanoseconds
 * @param comm each step's time waiting for its gradients' all-reduce
 * @param bytes each step's bytes sent by the collectives
 * @param interNode of those, the bytes that crossed nodes
 * @param moved the activation and gradient bytes a stage handed on
 */
record StepsDone(int steps, boolean stopped, float[] losses, long[] compute, long[] comm,
        long[] bytes, long[] interNode, long moved) {

    /** No steps: a call that did not run. */
    static final StepsDone NONE = new StepsDone(0, false, new float[0], new long[0], new long[0],
            new long[0], new long[0], 0);

    /** The worker's report of these steps, with what the worker adds. */
    WorkerReport report(long parameterHash, ProcessSample sample, boolean leaving) {
        return new WorkerReport(losses, compute, comm, bytes, interNode, moved, parameterHash,
                sample, leaving);
    }
}
