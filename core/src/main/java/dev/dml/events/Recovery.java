package dev.dml.events;

import java.util.List;

/**
 * The event a job sends when it has recovered from lost workers and goes on: what was lost,
 * which state it restored, and what the recovery cost.
 *
 * @param failedAt the steps the job had completed when the loss was noticed
 * @param resumedFrom the step of the state it restored (steps after it run again)
 * @param stepsRedone steps that had run (on some worker) and run again
 * @param seconds from noticing the loss to the restored workers being ready
 * @param cause one line: who was lost, and how
 * @param restoredFrom where the state came from: "a peer's snapshot", a checkpoint file, or
 *     "the start" when there was neither
 * @param preemption whether the workers left on a pre-emption notice (SIGTERM)
 * @param workers the job's workers after the recovery, by rank
 */
public record Recovery(long failedAt, long resumedFrom, long stepsRedone, double seconds,
        String cause, String restoredFrom, boolean preemption, List<WorkerInfo> workers)
        implements JobEvent {

    /** The workers' list is immutable. */
    public Recovery {
        workers = List.copyOf(workers);
    }
}
