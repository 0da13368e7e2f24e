package dev.dml.events;

import java.io.Serializable;

/**
 * How far a distributed prediction has come: an event the driver sends to the kernel as the
 * workers finish their batches, shown in the cell.
 *
 * @param rows rows scored so far, over all workers
 * @param total rows to score
 * @param workers worker actors scoring
 * @param seconds since the workers started scoring (their start and the model's load excluded)
 */
public record PredictProgress(long rows, long total, int workers, double seconds)
        implements Serializable {

    /**
     * Returns the throughput so far.
     *
     * @return rows per second over all workers; 0 before any time has passed
     */
    public double rowsPerSecond() {
        return seconds > 0 ? rows / seconds : 0;
    }

    /**
     * Tells whether every row has been scored.
     *
     * @return {@code true} at the end
     */
    public boolean done() {
        return rows >= total;
    }
}
