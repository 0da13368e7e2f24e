package dev.dml.ray.ps;

/**
 * A {@link ServerLink} that aggregates per node first, as BytePS and hierarchical parameter
 * servers do when a job spans nodes: the ranks of a node sum their changes among themselves,
 * only the node's leader talks to the servers (as the node's one client), and it hands the
 * parameters back to its node. Only leaders' traffic crosses nodes.
 */
public final class NodeAggregatedLink implements ServerLink {

    /** The ranks on this worker's node, as the collectives reach them. */
    public interface Node {

        /** @return the sum of every rank's {@code data} on the node */
        float[] sum(float[] data);

        /** @return the leader's {@code data} on every rank of the node */
        float[] fromLeader(float[] data);

        /** @return whether this rank leads its node */
        boolean leads();
    }

    private final ServerLink servers;
    private final Node node;

    /**
     * A link.
     *
     * @param servers the leader's link to the servers, as its node's client
     * @param node the node's ranks
     */
    public NodeAggregatedLink(ServerLink servers, Node node) {
        this.servers = servers;
        this.node = node;
    }

    @Override
    public float[] pushPull(long clock, float[] delta) {
        float[] sum = node.sum(delta);
        return node.fromLeader(node.leads() ? servers.pushPull(clock, sum) : new float[0]);
    }

    @Override
    public float[] pull() {
        return node.fromLeader(node.leads() ? servers.pull() : new float[0]);
    }

    @Override
    public long bytes() {
        return servers.bytes();
    }

    @Override
    public void close() {
        servers.close();
    }
}
