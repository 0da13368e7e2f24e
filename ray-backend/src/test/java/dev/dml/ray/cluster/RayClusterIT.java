package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The production path on a real cluster: an embedded head, a driver child JVM with the
 * installed {@code ray_dist.jar}, actors in their own JVMs, and a clean end. A second embedded
 * head (the bystander) stands for another user's cluster and must survive ours.
 *
 * <p>This JVM has no Ray jar on its class path (Failsafe excludes them), like a kernel.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RayClusterIT {

    private static RayCluster cluster;
    private static RayCluster bystander;
    private static DriverProcess driver;
    private static final List<Long> actorPids = new ArrayList<>();

    private static RayCluster embedded(int cpus) {
        // no RAY_ADDRESS, no ray.address: the embedded head, whatever this machine's settings
        return RayCluster.open(ClusterSpec.builder().optNumCpus(cpus).build(), Map.of(),
                new Properties());
    }

    @BeforeAll
    static void open() {
        // one after the other: Ray gives a starting node 30 s to register, which two heads
        // starting at once on a busy two-core machine can miss
        cluster = embedded(2);
        driver = cluster.openDriver();
        bystander = embedded(1);
    }

    @AfterAll
    static void closeAll() {
        if (cluster != null) {
            cluster.close();
        }
        if (bystander != null) {
            bystander.close();
        }
    }

    @Test
    @Order(1)
    void theKernelSideHasNoRayAndTheHeadIsOurs() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.ray.api.Ray"),
                "the test JVM, like a kernel, must not need Ray's classes");
        assertTrue(cluster.isEmbedded());
        assertNotEquals(cluster.address(), bystander.address());
        assertTrue(cluster.address().matches(".+:\\d+"), cluster.address());
        ClusterAddress.parse(cluster.address(), "test").probe(Duration.ofSeconds(5));
        assertTrue(driver.isAlive());
        // a control process: the serial collector in a small heap (JobJvms.driverHeap)
        assertEquals("Copy,MarkSweepCompact", driver.call(new DriverHeapProbe()));
    }

    @Test
    @Order(2)
    void twoActorsRunInTheirOwnJvmsAndAllReduce() {
        TestTasks.RingReport r = driver.call(new TestTasks.RingCheck("ring", 2, 100_003));
        actorPids.addAll(r.actorPids);
        assertEquals(2, new HashSet<>(r.actorPids).size(), "actors share a JVM: " + r.actorPids);
        assertEquals(driver.pid(), r.driverPid);
        for (long pid : r.actorPids) {
            assertNotEquals(r.driverPid, pid);
            assertNotEquals(ProcessHandle.current().pid(), pid);
        }
        for (long heap : r.actorMaxHeaps) {
            assertTrue(heap <= 512L << 20, "-Xmx512m did not reach the actor: max heap " + heap);
        }
        assertTrue(r.maxError <= 1e-6, "max error " + r.maxError);
        assertEquals(3f, r.broadcast[0]);
        assertEquals(4f, r.broadcast[2]);
        // ring: 2 steps x 2 ranks, one half of the array each; broadcast: 3 floats to rank 1
        assertEquals(2L * 100_003 * Float.BYTES + 3 * Float.BYTES, r.stats.bytesSent());
        assertEquals(r.stats.bytesSent(), r.stats.bytesReceived());
    }

    @Test
    @Order(3)
    void theHeadsWorkersRecordNoTaskEventsAndItsGcsKeepsFew() throws Exception {
        // S1: a job calls its workers dozens of times a second, and Ray's GCS kept an event
        // per call, growing by about 400 MB an hour
        List<Long> gcs = cluster.headProcesses().stream()
                .flatMap(h -> java.util.stream.Stream.concat(java.util.stream.Stream.of(h),
                        h.descendants()))
                .filter(p -> p.info().command().map(c -> c.endsWith("/gcs_server"))
                        .orElse(false))
                .map(ProcessHandle::pid).distinct().toList();
        assertEquals(1, gcs.size(), "the head's GCS among " + cluster.headProcesses());
        assertFalse(actorPids.isEmpty(), "the actors of the tests before");
        for (long pid : actorPids) {
            assertEquals("0", environ(pid).get("RAY_task_events_report_interval_ms"),
                    "worker " + pid);
        }
        assertEquals("1000", environ(gcs.get(0)).get("RAY_task_events_max_num_task_in_gcs"));
    }

    private static Map<String, String> environ(long pid) throws java.io.IOException {
        Map<String, String> out = new java.util.HashMap<>();
        for (String e : new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of(
                "/proc/" + pid + "/environ"))).split("\0")) {
            int eq = e.indexOf('=');
            if (eq > 0) {
                out.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        return out;
    }

    @Test
    @Order(3)
    void theHeadAndTheProcessesItStartsListenOnLoopbackOnly() throws Exception {
        java.util.Set<Long> pids = new HashSet<>(actorPids);
        cluster.headProcesses().forEach(h -> {
            pids.add(h.pid());
            h.descendants().forEach(d -> pids.add(d.pid()));
        });
        List<String> listening = ListeningSockets.addresses(pids);
        assertTrue(listening.size() >= 3, "expected the GCS, the raylet and the actors: "
                + listening);
        for (String a : listening) {
            assertTrue(ListeningSockets.isLoopback(a), "a process of the embedded head listens"
                    + " on " + a + ": " + listening);
        }
    }

    @Test
    @Order(4)
    void aKilledDriverFailsItsCallsAndTakesItsActorsButNotTheKernel() throws Exception {
        DriverProcess doomed = cluster.openDriver();
        TestTasks.RingReport r = doomed.call(new TestTasks.RingCheck("g", 2, 10));
        CompletableFuture<String> pending = doomed.submit(new TestTasks.Sleep(120_000));
        ProcessHandle.of(doomed.pid()).orElseThrow().destroyForcibly();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> pending.get(30, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof DmlException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("exited with code 137"),
                e.getCause().getMessage());
        ProcessChecks.awaitDead(r.actorPids, Duration.ofSeconds(60), "process");
        doomed.close();
        assertFalse(cluster.drivers().contains(doomed));
        assertTrue(driver.call(new TestTasks.Echo("still")).startsWith("still@"));
    }

    @Test
    @Order(5)
    void closeLeavesNothingOfOursAndSparesTheBystander() throws Exception {
        List<Long> ours = new ArrayList<>();
        cluster.headProcesses().forEach(h -> ours.add(h.pid()));
        ours.add(driver.pid());
        ours.addAll(actorPids);
        assertTrue(ours.size() > 4, "expected the head's processes, got " + ours);
        Path temp = cluster.tempDir().orElseThrow();
        List<ProcessHandle> theirs = bystander.headProcesses();

        cluster.close();

        ProcessChecks.awaitDead(ours, Duration.ofSeconds(30), "process");
        assertFalse(Files.exists(temp), "temp dir left: " + temp);
        assertFalse(driver.isAlive());
        for (ProcessHandle h : theirs) {
            assertTrue(h.isAlive(), "bystander process died: " + h.info().command());
        }
        ClusterAddress.parse(bystander.address(), "test").probe(Duration.ofSeconds(5));

        List<Long> bystanderPids = new ArrayList<>();
        bystander.headProcesses().forEach(h -> bystanderPids.add(h.pid()));
        bystander.close();
        ProcessChecks.awaitDead(bystanderPids, Duration.ofSeconds(30), "process");
    }
}
