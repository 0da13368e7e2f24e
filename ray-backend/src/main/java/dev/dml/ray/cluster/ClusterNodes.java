package dev.dml.ray.cluster;

import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.io.Serializable;
import java.util.ArrayList;

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
                    n.resources.getOrDefault("memory", 0.0).longValue()));
        }
        return nodes;
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

        Node(String id, String address, boolean alive, double cpus, double gpus,
                long memoryBytes) {
            this.id = id;
            this.address = address;
            this.alive = alive;
            this.cpus = cpus;
            this.gpus = gpus;
            this.memoryBytes = memoryBytes;
        }
    }
}
