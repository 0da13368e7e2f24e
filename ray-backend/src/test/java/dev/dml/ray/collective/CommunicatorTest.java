package dev.dml.ray.collective;

import static dev.dml.ray.collective.ProbeWorker.randomInputs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ring logic with an in-memory transport: one thread per rank, no Ray. */
class CommunicatorTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "rank threads leaked");
    }

    /** N communicators on one node wired to each other; sends deliver at once. */
    private static List<Communicator> ring(int n, Duration timeout) {
        return group(Topology.singleNode(n), timeout);
    }

    /** Communicators placed on nodes as the topology says, wired to each other. */
    static List<Communicator> group(Topology topology, Duration timeout) {
        List<Communicator> comms = new ArrayList<>();
        for (int r = 0; r < topology.size(); r++) {
            int from = r;
            comms.add(new Communicator(r, (to, seq, step, payload) -> {
                for (int t : to) {
                    comms.get(t).deliver(from, seq, step, payload);
                }
                return d -> { };
            }, topology, timeout));
        }
        return comms;
    }

    /** A topology from node names by rank: {@code "aabb"} is two nodes of two ranks. */
    private static Topology nodes(String layout) {
        return new Topology(layout.chars().mapToObj(c -> String.valueOf((char) c)).toList());
    }

    List<float[]> runAll(List<Communicator> comms, List<float[]> inputs,
            BiFunction<Communicator, float[], float[]> op) throws Exception {
        return runAll(pool, comms, inputs, op);
    }

    /** Runs {@code op} on every rank at once, one thread each; the results by rank. */
    static List<float[]> runAll(ExecutorService pool, List<Communicator> comms,
            List<float[]> inputs, BiFunction<Communicator, float[], float[]> op)
            throws Exception {
        List<Future<float[]>> fs = new ArrayList<>();
        for (int r = 0; r < comms.size(); r++) {
            Communicator c = comms.get(r);
            float[] in = inputs.get(r);
            fs.add(pool.submit(() -> op.apply(c, in)));
        }
        List<float[]> out = new ArrayList<>();
        for (Future<float[]> f : fs) {
            out.add(f.get(30, TimeUnit.SECONDS));
        }
        return out;
    }

    static float[] mean(List<float[]> in) {
        float[] m = new float[in.get(0).length];
        for (int i = 0; i < m.length; i++) {
            double s = 0;
            for (float[] a : in) {
                s += a[i];
            }
            m[i] = (float) (s / in.size());
        }
        return m;
    }

    @Test
    void averageEqualsMeanForManySizesAndLengths() throws Exception {
        for (int n = 1; n <= 8; n++) {
            for (int length : new int[] {0, 1, n - 1, n, n + 1, 7, 1001, 4096}) {
                if (length < 0) {
                    continue;
                }
                List<float[]> in = randomInputs(n, length, 31L * n + length);
                List<float[]> out = runAll(ring(n, Duration.ofSeconds(10)), in,
                        (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
                float[] expected = mean(in);
                for (int r = 0; r < n; r++) {
                    assertArrayEquals(expected, out.get(r), 1e-6f, "n=" + n + " len=" + length);
                    assertArrayEquals(out.get(0), out.get(r), 0f, "ranks disagree");
                }
            }
        }
    }

    @Test
    void hierarchicalAverageEqualsMeanForEveryLayout() throws Exception {
        // even and uneven nodes, ranks of a node apart ("abab"), one rank per node ("abc")
        for (String layout : List.of("aabb", "aaabb", "abbb", "aabbcc", "aaaabcc", "abab",
                "abc", "aab")) {
            for (int length : new int[] {0, 1, 3, 7, 1001}) {
                int n = layout.length();
                List<float[]> in = randomInputs(n, length, 17L * n + length);
                List<float[]> out = runAll(group(nodes(layout), Duration.ofSeconds(10)), in,
                        (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
                float[] expected = mean(in);
                for (int r = 0; r < n; r++) {
                    assertArrayEquals(expected, out.get(r), 1e-5f, layout + " len=" + length);
                    assertArrayEquals(out.get(0), out.get(r), 0f, layout + ": ranks disagree");
                }
            }
        }
    }

    @Test
    void onlyLeadersCrossNodes() throws Exception {
        int length = 1000;
        List<Communicator> hier = group(nodes("aabb"), Duration.ofSeconds(10));
        runAll(hier, randomInputs(4, length, 5), (c, a) -> c.allReduce(a, ReduceOp.SUM));
        CollectiveStats h = total(hier);
        // two leaders, a ring of two: each sends half the array twice
        assertEquals(2L * length * Float.BYTES, h.interNodeBytesSent());
        assertEquals(0, hier.get(1).stats().interNodeBytesSent(), "rank 1 is no leader");
        assertTrue(h.bytesSent() > h.interNodeBytesSent(), "the rest moved inside the nodes");

        // the same ranks in one flat ring: two of its four links cross nodes
        List<Communicator> flat = group(nodes("ab"), Duration.ofSeconds(10));
        runAll(flat, randomInputs(2, length, 5), (c, a) -> c.allReduce(a, ReduceOp.SUM));
        assertEquals(2L * length * Float.BYTES, total(flat).interNodeBytesSent(),
                "one rank per node: the plain ring, every byte crosses");
        List<Communicator> oneNode = ring(4, Duration.ofSeconds(10));
        runAll(oneNode, randomInputs(4, length, 5), (c, a) -> c.allReduce(a, ReduceOp.SUM));
        assertEquals(0, total(oneNode).interNodeBytesSent());
    }

    private static CollectiveStats total(List<Communicator> comms) {
        return comms.stream().map(Communicator::stats).reduce(CollectiveStats::plus)
                .orElseThrow();
    }

    @Test
    void sumLeavesInputsUntouchedAndCountsBytes() throws Exception {
        int n = 3;
        int length = 10;
        List<float[]> in = randomInputs(n, length, 7);
        List<float[]> copies = new ArrayList<>();
        in.forEach(a -> copies.add(a.clone()));
        List<Communicator> comms = ring(n, Duration.ofSeconds(10));
        List<float[]> out = runAll(comms, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
        for (int i = 0; i < length; i++) {
            assertEquals(in.get(0)[i] + in.get(1)[i] + in.get(2)[i], out.get(1)[i], 1e-6f);
        }
        for (int r = 0; r < n; r++) {
            assertArrayEquals(copies.get(r), in.get(r), 0f, "input modified");
        }
        CollectiveStats total = comms.stream().map(Communicator::stats)
                .reduce(CollectiveStats::plus).orElseThrow();
        // each rank sends 2(n-1) chunks; the chunks of one phase cover the array once per rank
        assertEquals(n * 2L * (n - 1), total.messagesSent());
        assertEquals(2L * (n - 1) * length * Float.BYTES, total.bytesSent());
        assertEquals(total.bytesSent(), total.bytesReceived());
        assertEquals(n, total.operations());
    }

    @Test
    void broadcastCopiesRankZeroToEveryRank() throws Exception {
        int n = 4;
        List<float[]> in = randomInputs(n, 33, 3);
        List<Communicator> comms = ring(n, Duration.ofSeconds(10));
        List<float[]> out = runAll(comms, in, Communicator::broadcast);
        for (float[] o : out) {
            assertArrayEquals(in.get(0), o, 0f);
        }
        assertEquals(3L * 33 * Float.BYTES, comms.get(0).stats().bytesSent());
    }

    @Test
    void consecutiveCollectivesKeepTheirOrder() throws Exception {
        int n = 3;
        List<Communicator> comms = ring(n, Duration.ofSeconds(10));
        List<float[]> in = randomInputs(n, 50, 11);
        List<float[]> out = runAll(comms, in, (c, a) -> {
            float[] x = c.allReduce(a, ReduceOp.SUM);
            float[] y = c.broadcast(x);
            return c.allReduce(y, ReduceOp.AVERAGE);
        });
        float[] sum = mean(in);
        for (int i = 0; i < sum.length; i++) {
            sum[i] *= n;
        }
        assertArrayEquals(sum, out.get(2), 1e-5f);
    }

    @Test
    void missingPeerTimesOutWithRankInMessage() {
        List<Communicator> comms = ring(2, Duration.ofMillis(300));
        CollectiveException e = assertThrows(CollectiveException.class,
                () -> comms.get(0).allReduce(new float[4], ReduceOp.SUM));
        assertEquals("Rank 0 got no data from rank 1 within 300 ms (all-reduce #0, step 0).",
                e.what());
        assertTrue(e.hint().contains("same collectives in order"), e.hint());
    }

    @Test
    void differentLengthsAreReported() throws Exception {
        List<Communicator> comms = ring(2, Duration.ofSeconds(5));
        List<float[]> in = List.of(new float[4], new float[6]);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> runAll(comms, in, (c, a) -> c.allReduce(a, ReduceOp.SUM)));
        assertTrue(e.getCause() instanceof CollectiveException, String.valueOf(e.getCause()));
        assertTrue(e.getCause().getMessage().contains("arrays of different lengths"),
                e.getCause().getMessage());
    }

    // The stop vote as a data-parallel step sends it: out after the backward, the gradients'
    // all-reduce in between, read after it; a message of its own, never in the gradients.

    @Test
    void everyRankStopsAfterTheStepInWhichOneVotedAndTheGradientsStayTheirOwn() throws Exception {
        List<Communicator> comms = group(new Topology(
                List.of("a", "a", "b", "b")), Duration.ofSeconds(10));
        List<float[]> grads = randomInputs(4, 1001, 7);
        float[] mean = mean(grads);
        for (int step = 0; step < 5; step++) {
            int leavingAt = step; // rank 2 votes to stop in step 3 only
            List<float[]> out = runAll(comms, grads, (c, g) -> {
                StopVote v = c.vote(c.rank() == 2 && leavingAt == 3);
                float[] reduced = c.allReduce(g, ReduceOp.AVERAGE);
                boolean stop = v.anyStop();
                float[] withFlag = Arrays.copyOf(reduced, reduced.length + 1);
                withFlag[reduced.length] = stop ? 1 : 0;
                return withFlag;
            });
            for (int r = 0; r < 4; r++) {
                float[] o = out.get(r);
                assertEquals(step == 3 ? 1f : 0f, o[1001], "rank " + r + " in step " + step);
                assertArrayEquals(mean, Arrays.copyOf(o, 1001), 1e-6f,
                        "the gradients' average is untouched by the vote");
            }
        }
        CollectiveStats s = comms.get(0).stats();
        assertEquals(5, s.operations(), "a vote is no all-reduce of its own");
    }

    @Test
    void aRankThatNeverVotesEndsTheWaitInOneLineWithinTheTimeout() {
        List<Communicator> comms = group(Topology.singleNode(2),
                Duration.ofMillis(200));
        StopVote v = comms.get(0).vote(false);
        long t0 = System.nanoTime();
        CollectiveException e = assertThrows(CollectiveException.class, v::anyStop);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "bounded wait");
        assertTrue(e.getMessage().startsWith("Rank 0 got no stop vote from rank 1"),
                e.getMessage());
    }

    @Test
    void anAbortEndsAVoteWaitAtOnce() {
        List<Communicator> comms = group(Topology.singleNode(2),
                Duration.ofSeconds(60));
        StopVote v = comms.get(0).vote(true);
        comms.get(0).abort("rank 1 died");
        CollectiveException e = assertThrows(CollectiveException.class, v::anyStop);
        assertTrue(e.getMessage().contains("rank 1 died"), e.getMessage());
    }

    @Test
    void aLoneRankKeepsItsOwnVoteAndSendsNothing() {
        Communicator alone = group(Topology.singleNode(1),
                Duration.ofSeconds(1)).get(0);
        assertTrue(alone.vote(true).anyStop());
        assertEquals(0, alone.stats().bytesSent());
    }
}
