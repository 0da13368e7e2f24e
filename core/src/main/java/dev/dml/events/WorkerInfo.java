package dev.dml.events;

import java.io.Serializable;

/**
 * Who a worker is: its rank, the group size, and where its JVM runs. Crosses Ray, so a plain
 * {@link Serializable} class.
 */
public final class WorkerInfo implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int rank;
    private final int worldSize;
    private final long pid;
    private final String host;

    /**
     * Creates the info.
     *
     * @param rank the worker's rank, 0-based
     * @param worldSize the number of workers in the group
     * @param pid the worker JVM's process id
     * @param host the worker's host name
     */
    public WorkerInfo(int rank, int worldSize, long pid, String host) {
        this.rank = rank;
        this.worldSize = worldSize;
        this.pid = pid;
        this.host = host;
    }

    /**
     * Returns the worker's rank.
     *
     * @return 0 to {@code worldSize - 1}
     */
    public int rank() {
        return rank;
    }

    /**
     * Returns the number of workers in the group.
     *
     * @return the world size
     */
    public int worldSize() {
        return worldSize;
    }

    /**
     * Returns the worker JVM's process id.
     *
     * @return the pid
     */
    public long pid() {
        return pid;
    }

    /**
     * Returns the worker's host name.
     *
     * @return the host
     */
    public String host() {
        return host;
    }

    @Override
    public String toString() {
        return "rank " + rank + "/" + worldSize + " (pid " + pid + " on " + host + ")";
    }
}
