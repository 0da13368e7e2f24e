package dev.dml.ray.cluster;

import java.io.IOException;

/**
 * {@link NamespacedCluster} for a test outside this JVM: a notebook test, whose kernel then
 * connects to the cluster with {@code %dml cluster connect}. Run with this module's test
 * classes and the kernel's jars on the class path and the node count as the argument; it
 * prints {@code address HOST:PORT}, {@code bridge IP}, {@code shared FOLDER} and {@code nodes
 * IP...} on stdout, one line each, then {@code ready}, and keeps the cluster until its stdin
 * closes (the test ends, or dies) or it is sent SIGTERM; then it tears everything down.
 * Where namespaces cannot be made it prints {@code unavailable REASON} and exits with 3.
 */
final class NamespacedNodesMain {

    /** The exit status that says namespaces are not available here. */
    static final int UNAVAILABLE = 3;

    private NamespacedNodesMain() {}

    /**
     * Starts the cluster and holds it.
     *
     * @param args the number of worker nodes
     */
    public static void main(String[] args) throws IOException {
        int count = args.length == 1 ? Integer.parseInt(args[0]) : 2;
        String why = NamespacedCluster.unavailable().orElse(null);
        if (why != null) {
            System.out.println("unavailable " + why);
            System.exit(UNAVAILABLE);
        }
        try (NamespacedCluster nodes = NamespacedCluster.start(count)) {
            System.out.println("address " + nodes.address());
            System.out.println("bridge " + HostNetwork.HEAD_IP);
            System.out.println("shared " + nodes.shared());
            System.out.println("nodes " + String.join(" ",
                    nodes.nodes().stream().map(NamespacedCluster.Node::ip).toList()));
            System.out.println("ready");
            System.out.flush();
            while (System.in.read() >= 0) {
                // the test holds stdin open for as long as it uses the cluster
            }
        }
    }
}
