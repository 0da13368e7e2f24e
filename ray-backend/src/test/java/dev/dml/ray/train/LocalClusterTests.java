package dev.dml.ray.train;

import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A base for cluster tests that share one local cluster (an embedded head with 2 CPUs) and one
 * driver per class, as the kernel keeps them: the class's tests run their jobs on {@link
 * #driver}.
 */
abstract class LocalClusterTests {

    static RayCluster cluster;
    static DriverProcess driver;

    @BeforeAll
    static void openCluster() {
        cluster = RayCluster.open(ClusterSpec.builder().optNumCpus(2).build());
        driver = cluster.openDriver();
    }

    @AfterAll
    static void closeCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
