package dev.dml.ray.ps;

import dev.dml.DmlException;
import java.util.Arrays;

/**
 * One parameter server's partition of the parameters, its clients' clocks and the gate of bounded
 * staleness. A client (a worker, or a node's leader when a job aggregates per node) pushes the
 * change its step made and gets the partition back: with no bound at once (asynchronous SGD), with
 * a bound {@code S} once every client has completed at least {@code clock - S} steps (stale
 * synchronous parallel: a worker runs at most S steps ahead of the slowest). Thread-safe: the
 * server serves its clients concurrently.
 */
public final class PartitionState {

    private float[] values = new float[0];
    private long[] clocks = new long[0];
    /** The bound S, or -1 for none. */
    private int staleness = -1;
    private long waitMillis;
    private String aborted;
    private long pushes;

    /**
     * Starts over from a replica's parameters: every client's clock at {@code clock}, the gate
     * open. Called before every run of steps, so a recovery re-seeds the servers.
     *
     * @param partition this server's floats
     * @param clock the steps the job has completed
     * @param clients the clients that push
     * @param bound the staleness bound S, or -1 for none
     * @param wait how long a gated client may wait for the slowest before the step fails
     */
    public synchronized void seed(float[] partition, long clock, int clients, int bound,
            long wait) {
        values = partition.clone();
        clocks = new long[clients];
        Arrays.fill(clocks, clock);
        staleness = bound;
        waitMillis = wait;
        aborted = null;
        notifyAll();
    }

    /**
     * Adds a client's change and returns the partition, once the gate lets the client on.
     *
     * @param client the client's index
     * @param clock the steps the client has completed with this change
     * @param delta the change, as long as the partition
     * @return the partition's floats after the change (and any the gate waited for)
     */
    public synchronized float[] pushPull(int client, long clock, float[] delta) {
        requireOpen();
        if (client < 0 || client >= clocks.length) {
            // a client that holds another node layout than the seed's would skew the gate
            throw new DmlException("A parameter server seeded for " + clocks.length
                    + " clients got a change from client " + client + ".",
                    "Seed the servers for the group's node layout after it changes.");
        }
        if (delta.length != values.length) {
            throw new DmlException("A parameter server holding " + values.length + " floats got"
                    + " a change of " + delta.length + ".", "Seed the servers before pushing.");
        }
        for (int i = 0; i < delta.length; i++) {
            values[i] += delta[i];
        }
        pushes++;
        clocks[client] = Math.max(clocks[client], clock);
        notifyAll();
        if (staleness >= 0) {
            long until = System.currentTimeMillis() + waitMillis;
            while (slowest() < clock - staleness) {
                long left = until - System.currentTimeMillis();
                if (left <= 0) {
                    throw new DmlException("A worker at step " + clock + " waited "
                            + (waitMillis < 1000 ? waitMillis + " ms" : waitMillis / 1000 + " s")
                            + " for the slowest, still at step " + slowest() + " with"
                            + " {sync=ssp:" + staleness + "}.", "See why that worker stalled"
                            + " in its log; a larger S lets the others run further ahead.");
                }
                waitQuietly(left);
                requireOpen();
            }
        }
        return values.clone();
    }

    /** The partition now. @return a copy of its floats */
    public synchronized float[] pull() {
        return values.clone();
    }

    /** The changes pushed since the last seed or ever. @return the count */
    public synchronized long pushes() {
        return pushes;
    }

    /**
     * Ends every wait at the gate, and every push until the next seed, with an error: a worker
     * was lost, and those waiting for it would wait in vain.
     *
     * @param why what happened
     */
    public synchronized void abort(String why) {
        aborted = why;
        notifyAll();
    }

    private long slowest() {
        return Arrays.stream(clocks).min().orElse(Long.MAX_VALUE);
    }

    private void requireOpen() {
        if (aborted != null) {
            throw new DmlException("The parameter server stopped serving: "
                    + DmlException.literal(aborted),
                    "The job recovers and seeds the servers again.");
        }
    }

    private void waitQuietly(long millis) {
        try {
            wait(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("A parameter server was interrupted.", "Start the job again.");
        }
    }
}
