package dev.dml.events;

import java.io.Serializable;

/**
 * Who a worker is: its rank, the group size, and where its JVM runs (host, node and the node's
 * IP, which tell nodes apart where host names repeat). Crosses Ray, so a plain {@link
 * Serializable} class.
 */
public final class WorkerInfo implements Serializable {

    private static final long serialVersionUID = 3L;

    private final int rank;
    private final int worldSize;
    private final long pid;
    private final String host;
    private final String nodeId;
    private final String nodeIp;
    private final String transport;

    /**
     * Creates the info of a worker whose node is not known apart from its host.
     *
     * @param rank the worker's rank, 0-based
     * @param worldSize the number of workers in the group
     * @param pid the worker JVM's process id
     * @param host the worker's host name
     */
    public WorkerInfo(int rank, int worldSize, long pid, String host) {
        this(rank, worldSize, pid, host, host, host);
    }

    /**
     * Creates the info.
     *
     * @param rank the worker's rank, 0-based
     * @param worldSize the number of workers in the group
     * @param pid the worker JVM's process id
     * @param host the worker's host name
     * @param nodeId the id of the Ray node the worker runs on
     * @param nodeIp that node's IP address
     */
    public WorkerInfo(int rank, int worldSize, long pid, String host, String nodeId,
            String nodeIp) {
        this(rank, worldSize, pid, host, nodeId, nodeIp, "");
    }

    private WorkerInfo(int rank, int worldSize, long pid, String host, String nodeId,
            String nodeIp, String transport) {
        this.transport = transport;
        this.rank = rank;
        this.worldSize = worldSize;
        this.pid = pid;
        this.host = host;
        this.nodeId = nodeId;
        this.nodeIp = nodeIp;
    }

    /**
     * Returns the same worker with another rank, as a bigger group (a pipeline's stages and
     * replicas) numbers it.
     *
     * @param newRank the rank in that group
     * @param newWorldSize that group's size
     * @return a new info
     */
    public WorkerInfo withRank(int newRank, int newWorldSize) {
        return new WorkerInfo(newRank, newWorldSize, pid, host, nodeId, nodeIp, transport);
    }

    /**
     * Returns the same worker with the way it reaches its peers.
     *
     * @param how {@code tcp}, {@code ray}, or a mix with the reason a link fell back
     * @return a new info
     */
    public WorkerInfo withTransport(String how) {
        return new WorkerInfo(rank, worldSize, pid, host, nodeId, nodeIp, how);
    }

    /**
     * Returns how the worker's collectives reach its peers: {@code tcp} (direct connections),
     * {@code ray} (the object store), a mix with the reason a link fell back, or empty before
     * the worker joined a group.
     *
     * @return the description
     */
    public String transport() {
        return transport == null ? "" : transport;
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

    /**
     * Returns the id of the node the worker runs on; workers with the same id share a machine.
     *
     * @return the node id (the host name where no Ray node id is known)
     */
    public String nodeId() {
        return nodeId;
    }

    /**
     * Returns the IP address of the worker's node, as {@code %dml status} and the live plot
     * show it.
     *
     * @return the address (the host name where it is not known)
     */
    public String nodeIp() {
        return nodeIp;
    }

    @Override
    public String toString() {
        return "rank " + rank + "/" + worldSize + " (pid " + pid + " on " + nodeIp + ")";
    }
}
