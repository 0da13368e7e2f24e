package dev.dml.ray.train.recovery;

/**
 * How many workers of a job's size the cluster's live nodes could hold, free or not; an
 * elastic job reads it to start and to notice nodes that join. Lives in the driver.
 */
@FunctionalInterface
public interface WorkerRoom {

    /**
     * Counts the workers the cluster could hold now.
     *
     * @return at least 0; {@link Integer#MAX_VALUE} when it cannot tell (Ray's LOCAL mode)
     */
    int slots();

    /**
     * Reads {@code room} at most once per {@code period}, answering with its last reading in
     * between: the job looks before every call, and asking the cluster costs a round trip.
     *
     * @param room the room to read
     * @param period the least time between reads
     * @return the room, read lazily
     */
    static WorkerRoom readEvery(WorkerRoom room, java.time.Duration period) {
        long[] next = {Long.MIN_VALUE};
        int[] last = {0};
        return () -> {
            long now = System.nanoTime();
            if (next[0] == Long.MIN_VALUE || now - next[0] >= 0) {
                last[0] = room.slots();
                next[0] = now + period.toNanos();
            }
            return last[0];
        };
    }
}
