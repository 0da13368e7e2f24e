package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ZeRO's halves of the ring with an in-memory transport: the reduce-scatter leaves each rank
 * bitwise what the all-reduce gives in its own range, the ranges tile the array, and the
 * all-gather returns every range to every rank, also on several nodes.
 */
class ShardRingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "rank threads leaked");
    }

    @Test
    void reduceScatterThenAllGatherIsTheAllReduceBitForBit() throws Exception {
        for (String layout : List.of("a", "aa", "aaa", "aabb", "abab", "aaaaa")) {
            int n = layout.length();
            Topology t = new Topology(layout.chars().mapToObj(c -> String.valueOf((char) c))
                    .toList());
            for (int length : new int[] {0, 1, n - 1, n + 1, 1001}) {
                List<float[]> in = ProbeWorker.randomInputs(n, length, 17L * length + n);
                List<float[]> whole = CommunicatorTest.runAll(pool,
                        CommunicatorTest.group(t, TIMEOUT), in,
                        (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
                List<Communicator> comms = CommunicatorTest.group(t, TIMEOUT);
                boolean[] covered = new boolean[length];
                List<float[]> sharded = CommunicatorTest.runAll(pool, comms, in, (c, a) -> {
                    float[] buf = a.clone();
                    int[] mine = ShardRing.reduceScatter(c, buf, ReduceOp.AVERAGE);
                    float[] own = Arrays.copyOfRange(buf, mine[0], mine[1]);
                    float[] gathered = new float[length];
                    System.arraycopy(own, 0, gathered, mine[0], own.length);
                    ShardRing.allGather(c, gathered);
                    synchronized (covered) {
                        for (int i = mine[0]; i < mine[1]; i++) {
                            assertTrue(!covered[i], "two ranks own element " + i);
                            covered[i] = true;
                        }
                    }
                    return gathered;
                });
                for (int i = 0; i < length; i++) {
                    assertTrue(covered[i], "no rank owns element " + i);
                }
                for (int r = 0; r < n; r++) {
                    // the hierarchical all-reduce sums in another order: equal up to rounding
                    if (t.hierarchical()) {
                        for (int i = 0; i < length; i++) {
                            assertEquals(whole.get(r)[i], sharded.get(r)[i], 1e-6);
                        }
                    } else {
                        assertArrayEquals(whole.get(r), sharded.get(r), layout + " " + length);
                    }
                }
            }
        }
    }

    @Test
    void sumOverRanksIsTheSameOnEveryRankAndCloseToTheExactSum() throws Exception {
        List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(3), TIMEOUT);
        double[] parts = {1.0 / 3, 12345.678901234, 1e-9};
        List<float[]> sums = CommunicatorTest.runAll(pool, comms, List.of(new float[1],
                new float[1], new float[1]), (c, a) -> {
                    double s = ShardRing.sum(c, parts[c.rank()]);
                    return new float[] {(float) s, (float) (s - (float) s)};
                });
        double exact = parts[0] + parts[1] + parts[2];
        for (float[] s : sums) {
            assertArrayEquals(sums.get(0), s);
            assertEquals(exact, (double) s[0] + s[1], exact * 1e-13);
        }
    }
}
