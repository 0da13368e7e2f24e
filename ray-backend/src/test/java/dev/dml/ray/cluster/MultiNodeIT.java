package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * dml's code reaching nodes that cannot see the kernel's jars: a head and two namespaced
 * nodes ({@link NamespacedCluster}), a driver on the head's machine, actors on the nodes.
 */
@Tag("cluster")
class MultiNodeIT {

    private static NamespacedCluster nodes;
    private static RayCluster cluster;
    private static DriverProcess driver;

    @BeforeAll
    static void start() throws Exception {
        String why = NamespacedCluster.unavailable().orElse(null);
        if (why != null) {
            System.err.println("MultiNodeIT skipped: " + why);
        }
        Assumptions.assumeTrue(why == null, why);
        nodes = NamespacedCluster.start(2);
        cluster = RayCluster.open(ClusterSpec.builder().optAddress(nodes.address()).build());
        driver = cluster.openDriver();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void actorsOnEveryNodeLoadDmlWithoutSeeingTheKernelsJars() {
        List<String> kernelPaths = new ArrayList<>();
        for (Path p : Classpaths.withoutRay(Classpaths.current())) {
            kernelPaths.add(p.toString());
        }
        List<NodeProbe.Report> reports = driver.call(new NodeProbe.Run(2, kernelPaths));
        Set<String> ips = new HashSet<>();
        for (NodeProbe.Report r : reports) {
            ips.add(r.ip);
            assertEquals(List.of(), r.readable, "node " + r.ip + " reads the kernel's jars");
        }
        Set<String> expected = new HashSet<>();
        nodes.nodes().forEach(n -> expected.add(n.ip()));
        assertEquals(expected, ips, "one probe per namespaced node");
        assertTrue(kernelPaths.stream().anyMatch(p -> p.contains("classes")
                || p.contains("dml-")), "the kernel's own code is among the paths checked");
    }
}
