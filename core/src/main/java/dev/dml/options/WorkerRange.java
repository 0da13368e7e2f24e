package dev.dml.options;

import java.io.Serializable;

/**
 * How many worker actors a job runs: a fixed count ({@code --workers 4}), or an elastic range
 * ({@code --workers 2:4}) within which the job starts with what the cluster can place, shrinks
 * when a lost worker cannot be replaced, and grows when nodes join.
 *
 * @param min the fewest workers the job runs with
 * @param max the most; the data is split into this many shards whatever the size
 */
public record WorkerRange(int min, int max) implements Serializable {

    /**
     * A fixed count.
     *
     * @param n the workers
     * @return the range {@code n:n}
     */
    public static WorkerRange of(int n) {
        return new WorkerRange(n, n);
    }

    /**
     * Tells whether the job may change its size while it runs.
     *
     * @return {@code true} when {@code min < max}
     */
    public boolean elastic() {
        return min < max;
    }

    /** Writes the range as a user types it: {@code 4} or {@code 2:4}. */
    @Override
    public String toString() {
        return elastic() ? min + ":" + max : String.valueOf(max);
    }
}
