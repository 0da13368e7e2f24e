package dev.dml.ray.collective;

import java.io.Serializable;

/**
 * What a worker's collectives moved: operations, messages and payload bytes, and how many of
 * those bytes crossed nodes. A plain {@link Serializable} class so that it can cross Ray;
 * {@link #plus} sums workers.
 */
public final class CollectiveStats implements Serializable {

    private static final long serialVersionUID = 2L;

    private final long operations;
    private final long messagesSent;
    private final long bytesSent;
    private final long interNodeBytesSent;
    private final long bytesReceived;
    private final long nanos;

    /**
     * Creates stats.
     *
     * @param operations collectives completed
     * @param messagesSent chunks sent to peers
     * @param bytesSent payload bytes sent to peers
     * @param interNodeBytesSent the part of {@code bytesSent} that went to peers on other nodes
     * @param bytesReceived payload bytes received from peers
     * @param nanos time spent inside collectives
     */
    public CollectiveStats(long operations, long messagesSent, long bytesSent,
            long interNodeBytesSent, long bytesReceived, long nanos) {
        this.operations = operations;
        this.messagesSent = messagesSent;
        this.bytesSent = bytesSent;
        this.interNodeBytesSent = interNodeBytesSent;
        this.bytesReceived = bytesReceived;
        this.nanos = nanos;
    }

    /**
     * Returns the number of collectives completed.
     *
     * @return the count
     */
    public long operations() {
        return operations;
    }

    /**
     * Returns the number of chunks sent to peers.
     *
     * @return the count
     */
    public long messagesSent() {
        return messagesSent;
    }

    /**
     * Returns the payload bytes sent to peers (each chunk counted once, by its sender).
     *
     * @return the bytes
     */
    public long bytesSent() {
        return bytesSent;
    }

    /**
     * Returns the payload bytes sent to peers on other nodes: the network's share of {@link
     * #bytesSent()}; the rest stayed inside nodes.
     *
     * @return the bytes
     */
    public long interNodeBytesSent() {
        return interNodeBytesSent;
    }

    /**
     * Returns the payload bytes received from peers.
     *
     * @return the bytes
     */
    public long bytesReceived() {
        return bytesReceived;
    }

    /**
     * Returns the time spent inside collectives; summed over workers by {@link #plus}.
     *
     * @return nanoseconds
     */
    public long nanos() {
        return nanos;
    }

    /**
     * Adds two workers' stats.
     *
     * @param other the other stats
     * @return the sums
     */
    public CollectiveStats plus(CollectiveStats other) {
        return new CollectiveStats(operations + other.operations,
                messagesSent + other.messagesSent, bytesSent + other.bytesSent,
                interNodeBytesSent + other.interNodeBytesSent,
                bytesReceived + other.bytesReceived, nanos + other.nanos);
    }

    @Override
    public String toString() {
        return "CollectiveStats[operations=" + operations + ", messagesSent=" + messagesSent
                + ", bytesSent=" + bytesSent
                + ", interNodeBytesSent=" + interNodeBytesSent + ", bytesReceived=" + bytesReceived
                + ", ms=" + nanos / 1_000_000 + "]";
    }
}
