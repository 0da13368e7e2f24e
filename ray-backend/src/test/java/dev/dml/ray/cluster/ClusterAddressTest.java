package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ClusterAddressTest {

    private static Properties props(String address) {
        Properties p = new Properties();
        if (address != null) {
            p.setProperty("ray.address", address);
        }
        return p;
    }

    @Test
    void explicitWinsOverEnvironmentWinsOverProperty() {
        ClusterSpec explicit = ClusterSpec.builder().optAddress("10.0.0.1:1").build();
        Map<String, String> env = Map.of("RAY_ADDRESS", "10.0.0.2:2");
        assertEquals("10.0.0.1:1", ClusterAddress.resolve(explicit, env, props("h:3")).text());
        ClusterAddress fromEnv = ClusterAddress.resolve(ClusterSpec.defaults(), env, props("h:3"));
        assertEquals("10.0.0.2:2", fromEnv.text());
        assertEquals("environment variable RAY_ADDRESS", fromEnv.source());
        ClusterAddress fromProp =
                ClusterAddress.resolve(ClusterSpec.defaults(), Map.of(), props("h:3"));
        assertEquals("h:3", fromProp.text());
        assertEquals("system property ray.address", fromProp.source());
        assertNull(ClusterAddress.resolve(ClusterSpec.defaults(), Map.of("RAY_ADDRESS", " "),
                props(null)), "nothing set means the embedded head");
    }

    @Test
    void badAddressesSayHowToWriteThem() {
        DmlException e = assertThrows(DmlException.class,
                () -> ClusterSpec.builder().optAddress("localhost"));
        assertEquals("'localhost' (from optClusterAddress) is not a Ray address host:port.\n"
                + "Write it as host:port, for example 10.0.0.5:6379.", e.getMessage());
        e = assertThrows(DmlException.class, () -> ClusterAddress.resolve(
                ClusterSpec.defaults(), Map.of("RAY_ADDRESS", "ray://h:10001"), props(null)));
        assertEquals("Ray Client addresses (ray://h:10001, from environment variable RAY_ADDRESS)"
                + " are not supported.", e.what());
    }

    @Test
    void closedPortFailsFastWithAFix() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ClusterSpec spec = ClusterSpec.builder().optAddress("127.0.0.1:" + port).build();
        long t0 = System.nanoTime();
        DmlException e = assertThrows(DmlException.class,
                () -> RayCluster.open(spec, Map.of(), new Properties()));
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "took 10 s or more");
        assertTrue(e.what().startsWith("The Ray cluster at 127.0.0.1:" + port
                + " (from optClusterAddress) is unreachable: "), e.what());
        assertEquals("Start it with `ray start --head --port=" + port + "` on 127.0.0.1, or "
                + "remove the optClusterAddress to use the embedded cluster.", e.hint());
    }

    /** Accepts one connection on a daemon thread, writes {@code reply}, holds it open. */
    private static void answerOnce(ServerSocket server, byte[] reply, long holdMillis) {
        Thread accept = new Thread(() -> {
            try (Socket s = server.accept()) {
                s.getOutputStream().write(reply);
                Thread.sleep(holdMillis);
            } catch (IOException | InterruptedException e) {
                // test over
            }
        });
        accept.setDaemon(true);
        accept.start();
    }

    @Test
    void silentServerFailsWithinTheProbeTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            answerOnce(silent, new byte[0], 5000);
            String address = "127.0.0.1:" + silent.getLocalPort();
            Map<String, String> env = Map.of("RAY_ADDRESS", address);
            ClusterSpec spec = ClusterSpec.builder().optProbeTimeout(Duration.ofSeconds(1))
                    .build();
            long t0 = System.nanoTime();
            DmlException e = assertThrows(DmlException.class,
                    () -> RayCluster.open(spec, env, new Properties()));
            assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "took 10 s or more");
            assertEquals(address + " (from environment variable RAY_ADDRESS) answers, but not as"
                    + " a Ray GCS (gRPC): no gRPC answer within 1000 ms.", e.what());
            assertEquals("Use the GCS address (port 6379 unless changed; `ray status` on the head"
                    + " shows it), or remove the environment variable RAY_ADDRESS to use the "
                    + "embedded cluster.", e.hint());
        }
    }

    @Test
    void aServerThatIsNotGrpcIsRejected() throws Exception {
        try (ServerSocket http = new ServerSocket(0)) {
            answerOnce(http, "HTTP/1.1 400 Bad Request\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII), 2000);
            ClusterAddress a = ClusterAddress.parse("127.0.0.1:" + http.getLocalPort(), "test");
            DmlException e = assertThrows(DmlException.class,
                    () -> a.probe(Duration.ofSeconds(5)));
            assertEquals(a.text() + " (from test) answers, but not as a Ray GCS (gRPC): got "
                    + "'HTTP/1.1 '.", e.what());
        }
    }

    @Test
    void probeTimeoutIsCappedAtTenSeconds() {
        DmlException e = assertThrows(DmlException.class,
                () -> ClusterSpec.builder().optProbeTimeout(Duration.ofSeconds(11)));
        assertEquals("probeTimeout must be at most 10 s, got 11000 ms.", e.what());
    }
}
