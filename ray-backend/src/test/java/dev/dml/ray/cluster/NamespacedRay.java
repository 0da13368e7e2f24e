package dev.dml.ray.cluster;

import dev.dml.Closeables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;

/**
 * A base for the cluster ITs: namespaced nodes ({@link NamespacedCluster}), a Ray cluster on
 * them and a driver, opened by the class's own {@code @BeforeAll} through {@link #open} and
 * closed after its tests; a class is skipped, saying why, where namespaces are not available.
 */
abstract class NamespacedRay {

    static NamespacedCluster nodes;
    static DriverProcess driver;
    private static RayCluster cluster;

    /**
     * Starts {@code count} nodes, a cluster on them and its driver.
     *
     * @param count the nodes
     * @param test the test's name, for the line saying why it is skipped
     */
    static void open(int count, String test) throws Exception {
        String why = NamespacedCluster.unavailable().orElse(null);
        if (why != null) {
            System.err.println(test + " skipped: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        nodes = NamespacedCluster.start(count);
        cluster = RayCluster.open(ClusterSpec.builder().optAddress(nodes.address()).build());
        driver = cluster.openDriver();
    }

    /** Closes the cluster, then takes the nodes down. */
    @AfterAll
    static void closeRay() {
        Closeables.closeAll(cluster, nodes);
        cluster = null;
        nodes = null;
        driver = null;
    }
}
