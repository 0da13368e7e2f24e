package dev.dml.magics;

import dev.dml.events.WorkerInfo;
import java.time.Duration;
import java.util.List;

/** A started job, as the backend runs it. */
public interface RunningJob {

    /**
     * Returns the job's id, unique in this kernel.
     *
     * @return the id
     */
    String id();

    /**
     * Returns the workers once they have started.
     *
     * @return rank, node and pid of each; empty before they start
     */
    List<WorkerInfo> workers();

    /**
     * Waits at most {@code timeout} for the job's end.
     *
     * @param timeout how long to wait
     * @return {@code true} once the job has ended (finished, stopped or failed)
     * @throws InterruptedException when the waiting thread is interrupted (the job keeps
     *     running)
     */
    boolean awaitEnd(Duration timeout) throws InterruptedException;

    /**
     * Returns how the job ended.
     *
     * @return the outcome
     * @throws IllegalStateException while it runs
     * @throws RuntimeException the job's failure, a dml exception that says how to fix it
     */
    JobOutcome outcome();

    /** Stops the job (gracefully, then by force) and returns once it has ended. */
    void stop();

    /**
     * How a job ended.
     *
     * @param stopped whether it was stopped before its last step
     * @param wallSeconds its wall time
     * @param result what the job produced, bound to {@code --into}
     */
    record JobOutcome(boolean stopped, double wallSeconds, Object result) {}
}
