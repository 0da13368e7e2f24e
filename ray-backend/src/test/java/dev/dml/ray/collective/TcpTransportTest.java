package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The collectives over real loopback sockets: one endpoint and one thread per rank, no Ray. */
class TcpTransportTest {

    private static final long TOKEN = 42;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<TcpEndpoint> endpoints = new ArrayList<>();
    private final List<Communicator> comms = new ArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        comms.forEach(Communicator::close);
        endpoints.forEach(TcpEndpoint::close);
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "rank threads leaked");
    }

    /**
     * A group whose ranks talk over TCP; ranks listed in {@code deaf} have no endpoint, and
     * their peers reach them through {@code fallback}.
     */
    List<Communicator> group(Topology topology, List<Integer> deaf,
            IntFunction<Transport> fallback) throws Exception {
        int n = topology.size();
        List<InetSocketAddress> addresses = new ArrayList<>();
        List<TcpEndpoint> mine = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            TcpEndpoint e = new TcpEndpoint("127.0.0.1", TOKEN);
            endpoints.add(e);
            mine.add(e);
            addresses.add(deaf.contains(r) ? null
                    : new InetSocketAddress("127.0.0.1", e.port()));
        }
        for (int r = 0; r < n; r++) {
            int rank = r;
            TcpTransport t = new TcpTransport(r, TOKEN, addresses,
                    fallback == null ? null : fallback.apply(r),
                    Duration.ofMillis(200), peer -> topology.sameNode(rank, peer));
            Communicator c = new Communicator(r, t, topology, Duration.ofSeconds(10));
            mine.get(r).bind(c);
            comms.add(c);
        }
        for (Communicator c : comms) {
            ((TcpTransport) transportOf(c)).connectAll();
        }
        return comms;
    }

    static Transport transportOf(Communicator c) throws Exception {
        java.lang.reflect.Field f = Communicator.class.getDeclaredField("transport");
        f.setAccessible(true);
        return (Transport) f.get(c);
    }

    List<float[]> runAll(List<Communicator> group, List<float[]> inputs,
            BiFunction<Communicator, float[], float[]> op) throws Exception {
        return CommunicatorTest.runAll(pool, group, inputs, op);
    }

    @Test
    void ringAndHierarchicalAllReduceAndBroadcastOverSockets() throws Exception {
        for (String layout : List.of("aaa", "aabb")) {
            tearDownGroup();
            Topology t = new Topology(layout.chars().mapToObj(c -> String.valueOf((char) c))
                    .toList());
            List<Communicator> g = group(t, List.of(), null);
            int n = layout.length();
            for (int length : new int[] {0, 1, 5, 100_003}) {
                List<float[]> in = ProbeWorker.randomInputs(n, length, length + n);
                List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
                for (float[] o : out) {
                    assertArrayEquals(CommunicatorTest.mean(in), o, 1e-5f, layout + " " + length);
                    assertArrayEquals(out.get(0), o, 0f, "ranks disagree");
                }
            }
            List<float[]> in = ProbeWorker.randomInputs(n, 77, 9);
            for (float[] o : runAll(g, in, Communicator::broadcast)) {
                assertArrayEquals(in.get(0), o, 0f);
            }
            assertEquals("tcp", transportOf(g.get(0)).describe());
        }
    }

    /**
     * Ranks on one node pass big chunks through shared memory, round and round its rings (a
     * 48 MB all-reduce a time, so the 32 MB rings wrap and fill); ranks on different nodes never
     * do; and no ring's file is left behind.
     */
    @Test
    void ranksOnOneNodeShareMemoryAndLeaveNothingBehind() throws Exception {
        for (String layout : List.of("aa", "ab")) {
            tearDownGroup();
            List<Communicator> g = group(new Topology(List.of(layout.substring(0, 1),
                    layout.substring(1))), List.of(), null);
            for (int round = 0; round < 4; round++) {
                List<float[]> in = ProbeWorker.randomInputs(2, 12 << 20, round);
                List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
                float[] sum = CommunicatorTest.mean(in);
                for (int i = 0; i < sum.length; i++) {
                    sum[i] *= 2;
                }
                assertArrayEquals(sum, out.get(0), 1e-5f, layout);
                assertArrayEquals(out.get(0), out.get(1), 0f, "ranks disagree");
            }
            long viaShm = ((TcpTransport) transportOf(g.get(0))).sharedMemoryBytes();
            if (layout.equals("aa")) {
                assertTrue(viaShm > 4L * (12 << 20), "one node, yet " + viaShm + " bytes in"
                        + " shared memory");
            } else {
                assertEquals(0, viaShm, "two nodes cannot share memory");
            }
            assertEquals("tcp", transportOf(g.get(0)).describe());
        }
        tearDownGroup();
        for (Path ring : ringsOf2()) {
            assertFalse(Files.exists(ring), ring + " is left behind");
        }
    }

    /**
     * A small model's rings are sized by its chunks, not 32 MB each: every ring's pages are held
     * in /dev/shm while the group lives (B1, a 2 GiB Binder session, held 64 MB of them).
     */
    @Test
    void aSmallModelsRingsAreSizedByItsChunks() throws Exception {
        List<Communicator> g = group(new Topology(List.of("a", "a")), List.of(), null);
        List<float[]> in = ProbeWorker.randomInputs(2, 100_000, 1);
        List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
        assertArrayEquals(out.get(0), out.get(1), 0f, "ranks disagree");
        assertTrue(((TcpTransport) transportOf(g.get(0))).sharedMemoryBytes() > 0,
                "the chunks went through the rings");
        // the files are unlinked once both ends have them mapped: the mappings tell their size
        List<String> maps = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> ringsOf2().stream().anyMatch(f -> l.contains(f.toString())))
                .toList();
        assertFalse(maps.isEmpty(), "no ring is mapped");
        for (String m : maps) {
            String[] range = m.substring(0, m.indexOf(' ')).split("-");
            long size = Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
            assertTrue(size <= TcpTransport.SHM_RING_MIN_BYTES + (64 << 10), m + ": " + size
                    + " bytes for chunks of 200 KB");
        }
        tearDownGroup();
    }

    private void tearDownGroup() {
        comms.forEach(Communicator::close);
        comms.clear();
    }

    /** The ring files of a two-rank group under {@link #TOKEN}. */
    private static List<Path> ringsOf2() {
        return List.of(ShmRing.fileFor(TOKEN, 0, 1), ShmRing.fileFor(TOKEN, 1, 0));
    }

    /** How many of this JVM's memory mappings are of these files. */
    private static long mappingsOf(List<Path> files) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> files.stream().anyMatch(f -> l.contains(f.toString()))).count();
    }

    /**
     * Issue 26, row 4: closing a group unmaps both ends of its rings at once (not when the
     * buffers happen to be collected) and leaves no file, so regrouping again and again does
     * not pile rings up in /dev/shm.
     */
    @Test
    void row4ClosingAGroupUnmapsItsRingsSoRegroupsDoNotPileThemUp() throws Exception {
        for (int round = 0; round < 4; round++) {
            List<Communicator> g = group(new Topology(List.of("a", "a")), List.of(), null);
            List<float[]> in = ProbeWorker.randomInputs(2, 1 << 20, round);
            List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
            assertArrayEquals(out.get(0), out.get(1), 0f, "ranks disagree");
            assertTrue(((TcpTransport) transportOf(g.get(0))).sharedMemoryBytes() > 0,
                    "the chunks went through the rings");
            assertTrue(mappingsOf(ringsOf2()) > 0, "the open group maps its rings");
            tearDownGroup();
            endpoints.forEach(TcpEndpoint::close);
            endpoints.clear();
            assertEquals(0, mappingsOf(ringsOf2()), "round " + round + ": still mapped");
            for (Path ring : ringsOf2()) {
                assertFalse(Files.exists(ring), ring + " is left behind");
            }
        }
    }

    @Test
    void aPeerThatCannotBeReachedGoesThroughTheFallbackAndSaysSo() throws Exception {
        AtomicInteger viaFallback = new AtomicInteger();
        IntFunction<Transport> fallback = from -> (to, seq, step, payload) -> {
            viaFallback.incrementAndGet();
            for (int r : to) {
                comms.get(r).deliver(from, seq, step, payload);
            }
            return d -> { };
        };
        List<Communicator> g = group(Topology.singleNode(3), List.of(2), fallback);
        List<float[]> in = ProbeWorker.randomInputs(3, 1000, 3);
        List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
        float[] sum = CommunicatorTest.mean(in);
        for (int i = 0; i < sum.length; i++) {
            sum[i] *= 3;
        }
        assertArrayEquals(sum, out.get(2), 1e-4f);
        assertTrue(viaFallback.get() > 0, "rank 1 sends to rank 2 through the fallback");
        String how = transportOf(g.get(1)).describe();
        assertTrue(how.startsWith("tcp; ray for rank 2 ("), how);
        assertFalse(TransportKind.allDirect(how), "the overlapped all-reduce needs sockets");
        assertEquals("tcp", transportOf(g.get(2)).describe(), "rank 2 reaches the others");
    }

    @Test
    void aPeerThatDiesEndsTheWaitAtOnceNotAtTheTimeout() throws Exception {
        List<Communicator> g = group(Topology.singleNode(2), List.of(), null);
        runAll(g, ProbeWorker.randomInputs(2, 10, 1), (c, a) -> c.allReduce(a,
                ReduceOp.SUM));
        long t0 = System.nanoTime();
        Future<float[]> waiting = pool.submit(() -> g.get(0).allReduce(new float[10],
                ReduceOp.SUM));
        Thread.sleep(100);
        g.get(1).close(); // rank 1's process is gone: its sockets close
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> waiting.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof CollectiveException, e.toString());
        assertTrue(e.getCause().getMessage().contains("rank 1 closed its connection"),
                e.getCause().getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "not the timeout");
    }

    @Test
    void aConnectionWithoutTheGroupsTokenIsClosedAndChangesNothing() throws Exception {
        List<Communicator> g = group(Topology.singleNode(2), List.of(), null);
        try (Socket stray = new Socket("127.0.0.1", endpoints.get(0).port());
                DataOutputStream out = new DataOutputStream(stray.getOutputStream())) {
            out.writeInt(TcpEndpoint.MAGIC);
            out.writeLong(TOKEN + 1);
            out.writeInt(1);
            out.writeLong(0);
            out.writeInt(0);
            out.writeInt(4);
            out.write(new byte[4]);
            out.flush();
            assertEquals(-1, stray.getInputStream().read(), "the endpoint hangs up");
        }
        List<float[]> in = ProbeWorker.randomInputs(2, 10, 4);
        List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
        assertArrayEquals(CommunicatorTest.mean(in), out.get(0), 1e-6f);
    }
    /**
     * Issue 26 row 1: a connection with the group's token that names a rank the group has
     * (already connected), its receiver's own rank, or no rank of the group is refused, so the
     * chunks it sends ahead of a collective never replace the real sender's.
     */
    @Test
    void row1AHelloNamingAnotherRanksSlotIsRefusedAndPoisonsNothing() throws Exception {
        List<Communicator> g = group(Topology.singleNode(2), List.of(), null);
        for (int forged : new int[] {1, 0, 7}) {
            try (Socket stray = new Socket("127.0.0.1", endpoints.get(0).port());
                    DataOutputStream out = new DataOutputStream(stray.getOutputStream())) {
                stray.setSoTimeout(3000);
                out.writeInt(TcpEndpoint.MAGIC);
                out.writeLong(TOKEN);
                out.writeInt(forged);
                for (int step : new int[] {0, Communicator.PHASE}) {
                    out.writeLong(0); // the next collective's chunks, full of poison
                    out.writeInt(step);
                    out.writeInt(5 * Float.BYTES);
                    for (int i = 0; i < 5; i++) {
                        out.writeFloat(1e9f);
                    }
                }
                out.flush();
                try {
                    assertEquals(-1, stray.getInputStream().read(), "the endpoint hangs up");
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("a connection as rank " + forged + " was kept", e);
                }
            }
        }
        List<float[]> in = ProbeWorker.randomInputs(2, 10, 5);
        List<float[]> out = runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
        assertArrayEquals(CommunicatorTest.mean(in), out.get(0), 1e-6f);
        assertArrayEquals(CommunicatorTest.mean(in), out.get(1), 1e-6f);
    }
}
