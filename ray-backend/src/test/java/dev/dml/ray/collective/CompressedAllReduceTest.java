package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The compressed all-reduce with an in-memory transport: one thread per rank, no Ray. */
class CompressedAllReduceTest {

    private final CommunicatorTest rings = new CommunicatorTest();

    @AfterEach
    void tearDown() throws InterruptedException {
        rings.tearDown();
    }

    private static List<GradientCompressor> compressors(String scheme, int n) {
        List<GradientCompressor> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(new GradientCompressor(GradientCompression.of(scheme), 1));
        }
        return out;
    }

    private List<float[]> allReduce(List<Communicator> comms, List<GradientCompressor> gcs,
            List<float[]> in, ReduceOp op) throws Exception {
        return rings.runAll(comms, in, (c, a) -> c.allReduce(a, op, gcs.get(c.rank())));
    }

    @Test
    void everyRankGetsTheSameArrayCloseToTheSumWithTheFlagExact() throws Exception {
        for (String scheme : List.of("fp16", "bf16", "int8", "topk:1", "topk:0.3")) {
            for (int n = 1; n <= 5; n++) {
                for (int length : new int[] {1, 2, n + 1, 7, 1001, 5000}) {
                    List<float[]> in = ProbeWorker.randomInputs(n, length, 7L * n + length);
                    for (float[] a : in) {
                        a[length - 1] = a == in.get(n - 1) ? 1f : 0f; // the leaving flag
                    }
                    List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(n),
                            Duration.ofSeconds(10));
                    List<float[]> out = allReduce(comms, compressors(scheme, n), in,
                            ReduceOp.SUM);
                    String what = scheme + " n=" + n + " len=" + length;
                    float[] exact = CommunicatorTest.mean(in);
                    for (int r = 0; r < n; r++) {
                        assertArrayEquals(out.get(0), out.get(r), 0f, "ranks disagree: " + what);
                        assertEquals(1f, out.get(r)[length - 1], 0f, "flag: " + what);
                    }
                    if (!scheme.equals("topk:0.3")) {
                        double tolerance = scheme.equals("int8") ? 0.02 * n
                                : scheme.equals("bf16") ? 0.01 * n : 1e-3 * n;
                        for (int i = 0; i < length - 1; i++) {
                            assertEquals(exact[i] * n, out.get(0)[i], tolerance, what + " " + i);
                        }
                    }
                }
            }
        }
    }

    @Test
    void theBytesOnTheWireShrinkAsEachSchemePromises() throws Exception {
        int length = 100_001; // 100,000 gradients and the flag
        List<float[]> in = ProbeWorker.randomInputs(2, length, 5);
        long none = bytesSent("none", in);
        assertEquals(2 * length * 4, none, 16, "the ring sends each rank's half, twice");
        assertEquals(2.0, (double) none / bytesSent("fp16", in), 0.01);
        assertEquals(2.0, (double) none / bytesSent("bf16", in), 0.01);
        double int8 = (double) none / bytesSent("int8", in);
        assertTrue(int8 >= 3.9 && int8 <= 4, "int8 " + int8);
        double topk = (double) none / bytesSent("topk:0.01", in);
        assertTrue(topk >= 50, "top-k at 1 %: " + topk);
    }

    private long bytesSent(String scheme, List<float[]> in) throws Exception {
        List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(2),
                Duration.ofSeconds(10));
        allReduce(comms, compressors(scheme, 2), in, ReduceOp.AVERAGE);
        return comms.get(0).stats().bytesSent() + comms.get(1).stats().bytesSent();
    }

    /**
     * What each step loses stays in the ranks' residuals: the results over the steps plus the
     * residuals left equal the sum of every rank's gradients, for every scheme.
     */
    @Test
    void resultsAndResidualsTogetherHoldEveryGradient() throws Exception {
        for (String scheme : List.of("fp16", "int8", "topk:0.05")) {
            int n = 3;
            int length = 2001;
            List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(n),
                    Duration.ofSeconds(10));
            List<GradientCompressor> gcs = compressors(scheme, n);
            double[] given = new double[length - 1];
            double[] applied = new double[length - 1];
            for (int step = 0; step < 40; step++) {
                List<float[]> in = ProbeWorker.randomInputs(n, length, 100 + step);
                for (float[] a : in) {
                    for (int i = 0; i < length - 1; i++) {
                        given[i] += a[i];
                    }
                }
                float[] out = allReduce(comms, gcs, in, ReduceOp.SUM).get(0);
                for (int i = 0; i < length - 1; i++) {
                    applied[i] += out[i];
                }
            }
            assertHeld(given, applied, gcs, scheme);
        }
    }

    /**
     * Asserts that what was applied plus every rank's residual left equals what was given, to
     * 1e-3 per element: error feedback delays, but never drops.
     */
    static void assertHeld(double[] given, double[] applied, List<GradientCompressor> gcs,
            String what) {
        double[] total = applied.clone();
        for (GradientCompressor gc : gcs) {
            float[] res = gc.residual();
            for (int i = 0; i < total.length; i++) {
                total[i] += res[i];
            }
        }
        for (int i = 0; i < total.length; i++) {
            assertEquals(given[i], total[i], 1e-3, what + " element " + i);
        }
    }
}
