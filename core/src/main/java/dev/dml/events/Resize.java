package dev.dml.events;

import java.util.List;

/**
 * The event an elastic job ({@code --workers MIN:MAX}) sends when it changes its number of
 * workers: it grew onto nodes that joined, or shrank when lost workers could not be replaced.
 * Each step still trains the same rows, so the loss curve goes on where it was.
 *
 * @param step the steps the job had completed when it changed
 * @param from the workers before
 * @param to the workers after
 * @param cause one line: why
 * @param workers the job's workers now, by rank
 */
public record Resize(long step, int from, int to, String cause, List<WorkerInfo> workers)
        implements JobEvent {

    /** The workers' list is immutable. */
    public Resize {
        workers = List.copyOf(workers);
    }

    /**
     * Tells whether the job grew.
     *
     * @return {@code true} when it has more workers now
     */
    public boolean grew() {
        return to > from;
    }
}
