package dev.dml.events;

import java.util.List;

/**
 * The event a job sends once its workers run, before its first step.
 *
 * @param workers rank, pid and host of each worker, by rank
 */
public record JobStarted(List<WorkerInfo> workers) implements JobEvent {

    /** The workers' list is immutable. */
    public JobStarted {
        workers = List.copyOf(workers);
    }
}
