package dev.dml.ray.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Clients reach in-process servers over direct TCP connections: pushes, errors, a loss. */
class TcpServerLinkTest {

    private static final List<long[]> SHAPES = List.of(new long[] {2, 2}, new long[] {2});
    /** The parameters the two servers start from. */
    private static final float[] START = {1, 2, 3, 4, 5, 6};

    private static PartitionState[] twoServers() {
        return new PartitionState[] {new PartitionState(), new PartitionState()};
    }

    /** Seeds both servers' states with their partitions of {@link #START}. */
    private static PartitionState[] seed(PartitionState[] state, ServerPartitions partitions,
            long clock, int workers) {
        for (int s = 0; s < state.length; s++) {
            state[s].seed(partitions.gather(START, s), clock, workers, -1, 10_000);
        }
        return state;
    }

    /** Two servers on loopback, seeded with {@link #START}, and the links to both. */
    private static final class TwoServers implements AutoCloseable {
        final ServerPartitions partitions = ServerPartitions.of(SHAPES, 2);
        final PartitionState[] state;
        final TcpPartitionServer a;
        final TcpPartitionServer b;

        TwoServers(int workers) throws IOException {
            state = seed(twoServers(), partitions, 0, workers);
            a = new TcpPartitionServer(state[0], 7, "127.0.0.1");
            try {
                b = new TcpPartitionServer(state[1], 7, "127.0.0.1");
            } catch (IOException | RuntimeException e) {
                a.close();
                throw e;
            }
        }

        /** A link of one worker to both servers. */
        TcpServerLink link(int rank) {
            return new TcpServerLink(List.of(a.address(), b.address()), 7, partitions, rank);
        }

        @Override
        public void close() {
            b.close();
            a.close();
        }
    }

    @Test
    void twoClientsPushToTwoServersAndSeeEachOthersChanges() throws Exception {
        try (TwoServers servers = new TwoServers(2);
                TcpServerLink c0 = servers.link(0);
                TcpServerLink c1 = servers.link(1)) {
            assertArrayEquals(new float[] {2, 2, 3, 4, 5, 7},
                    c0.pushPull(1, new float[] {1, 0, 0, 0, 0, 1}));
            assertArrayEquals(new float[] {2, 2, 3, 5, 5, 7},
                    c1.pushPull(1, new float[] {0, 0, 0, 1, 0, 0}));
            assertArrayEquals(new float[] {2, 2, 3, 5, 5, 7}, c0.pull());
            assertEquals(6 * 4 * 2 + 6 * 4, c0.bytes(), "a push and two replies of 6 floats");
            servers.state[1].abort("rank 1 was lost");
            DmlException refused = assertThrows(DmlException.class,
                    () -> c0.pushPull(2, new float[6]));
            assertTrue(refused.what().startsWith("Parameter server 1 of 2: The parameter"
                    + " server stopped serving: rank 1 was lost"), refused.what());
            servers.b.close();
        }
    }

    /**
     * When the first of two servers refuses a push (aborted after a lost worker), the second's
     * reply is still read: after the servers are seeded again, the link's next answers are its
     * own, not a stale reply (a recovery would otherwise see the servers still stopped, or
     * replicas that disagree).
     */
    @Test
    void aRefusedPushLeavesTheLinkInStepForTheNextRequest() throws Exception {
        try (TwoServers servers = new TwoServers(1); TcpServerLink c = servers.link(0)) {
            servers.state[0].abort("rank 1 was lost");
            assertThrows(DmlException.class, () -> c.pushPull(1, new float[6]));
            seed(servers.state, servers.partitions, 1, 1);
            assertArrayEquals(new float[] {1, 2, 3, 4, 5, 7},
                    c.pushPull(2, new float[] {0, 0, 0, 0, 0, 1}));
            assertArrayEquals(new float[] {1, 2, 3, 4, 5, 7}, c.pull());
        }
    }

    @Test
    void aServerThatIsGoneFailsTheStepInOneLine() throws Exception {
        PartitionState state = new PartitionState();
        state.seed(new float[6], 0, 1, -1, 10_000);
        TcpPartitionServer server = new TcpPartitionServer(state, 9, "127.0.0.1");
        String address = server.address();
        server.close();
        try (TcpServerLink c = new TcpServerLink(List.of(address), 9,
                ServerPartitions.of(SHAPES, 1), 0)) {
            DmlException e = assertThrows(DmlException.class, () -> c.pushPull(1, new float[6]));
            assertTrue(e.what().startsWith("Parameter server 0 of 1 was lost ("), e.what());
            assertTrue(e.what().endsWith("; an asynchronous job does not outlive its servers."),
                    e.what());
        }
    }
    /**
     * Issue 26 row 11: when one server cannot be reached, the connections already opened to the
     * others are closed, not leaked.
     */
    @Test
    void row11AnUnreachableServerLeavesNoOtherConnectionOpen() throws Exception {
        try (ServerSocket reachable = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            ServerSocket gone = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
            String goneAddress = "127.0.0.1:" + gone.getLocalPort();
            gone.close();
            try (TcpServerLink c = new TcpServerLink(List.of("127.0.0.1:"
                    + reachable.getLocalPort(), goneAddress), 9, ServerPartitions.of(SHAPES, 2),
                    0)) {
                DmlException e = assertThrows(DmlException.class, c::pull);
                assertTrue(e.what().startsWith("Parameter server 1 of 2 was lost ("), e.what());
                reachable.setSoTimeout(5000);
                try (Socket accepted = reachable.accept()) {
                    accepted.setSoTimeout(5000);
                    InputStream in = accepted.getInputStream();
                    in.readNBytes(12); // the magic and the token
                    assertEquals(-1, in.read(), "the link kept server 0's connection");
                } catch (SocketTimeoutException x) {
                    throw new AssertionError("the link kept server 0's connection open", x);
                }
            }
        }
    }

    /**
     * Issue 26 row 11: a server that takes a request and never answers (it vanished) fails the
     * step after the link's reply wait, in one line, instead of blocking the worker forever.
     */
    @Test
    void row11AServerThatVanishesAfterARequestTimesOutInOneLine() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
                TcpServerLink c = new TcpServerLink(List.of("127.0.0.1:"
                        + silent.getLocalPort()), 9, ServerPartitions.of(SHAPES, 1), 0,
                        Duration.ofMillis(500))) {
            DmlException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertThrows(DmlException.class, c::pull));
            assertEquals("Parameter server 0 of 1 was lost (no reply within 500 ms); an"
                    + " asynchronous job does not outlive its servers.", e.what());
        }
    }
}
