package dev.dml.ray.cluster;

import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * Lists a cluster's nodes and their resources, as {@code %dml cluster} shows them. Runs in the
 * driver: {@code driver.call(new ClusterNodes())}.
 */
public final class ClusterNodes implements DriverTask<ArrayList<ClusterNodes.Node>> {

    private static final long serialVersionUID = 1L;

    @Override
    public ArrayList<Node> run(DriverContext context) {
        ArrayList<Node> nodes = new ArrayList<>();
        for (NodeInfo n : Ray.getRuntimeContext().getAllNodeInfo()) {
            nodes.add(new Node(n.nodeId.toString(), n.nodeAddress, n.isAlive,
                    n.resources.getOrDefault("CPU", 0.0), n.resources.getOrDefault("GPU", 0.0),
                    n.resources.getOrDefault("memory", 0.0).longValue(),
                    n.labels == null ? new HashMap<>() : new HashMap<>(n.labels)));
        }
        return nodes;
    }

    /**
     * Returns each node's Ray labels, by node id; in the driver only.
     *
     * @return the labels of every node the cluster knows, alive or not; none in LOCAL mode
     */
    public static Map<String, Map<String, String>> labels() {
        Map<String, Map<String, String>> out = new HashMap<>();
        if (Ray.getRuntimeContext().isLocalMode()) {
            return out; // one process, node "local": no labels
        }
        for (NodeInfo n : Ray.getRuntimeContext().getAllNodeInfo()) {
            out.put(n.nodeId.toString(), n.labels == null ? Map.of() : Map.copyOf(n.labels));
        }
        return out;
    }

    /** One node: crosses from the driver to the kernel, so a plain Serializable class. */
    public static final class Node implements Serializable {
        private static final long serialVersionUID = 1L;

        /** The node's id. */
        public final String id;
        /** Its IP address. */
        public final String address;
        /** Whether it is alive. */
        public final boolean alive;
        /** Its CPUs. */
        public final double cpus;
        /** Its GPUs. */
        public final double gpus;
        /** Its memory for tasks and actors, in bytes. */
        public final long memoryBytes;
        /** Its Ray node labels, e.g. {@code dml.dev/instance-type}: what prices it. */
        public final HashMap<String, String> labels;

        Node(String id, String address, boolean alive, double cpus, double gpus,
                long memoryBytes, HashMap<String, String> labels) {
            this.id = id;
            this.address = address;
            this.alive = alive;
            this.cpus = cpus;
            this.gpus = gpus;
            this.memoryBytes = memoryBytes;
            this.labels = labels;
        }
    }
}
