package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PowerSGD's all-reduce with an in-memory transport, one thread per rank: exact where nothing
 * is lost, the same array on every rank, and nothing dropped by the error feedback.
 */
class PowerSgdTest {

    /** A linear weight, a bias, a convolution kernel (8 x 18) and a tiny matrix (2 x 3). */
    private static final List<long[]> SHAPES = List.of(new long[] {20, 30}, new long[] {20},
            new long[] {8, 2, 3, 3}, new long[] {2, 3});
    private static final GradientLayout LAYOUT = GradientLayout.of(SHAPES);

    private final CommunicatorTest rings = new CommunicatorTest();

    @AfterEach
    void tearDown() throws InterruptedException {
        rings.tearDown();
    }

    private static List<GradientCompressor> compressors(String scheme, GradientLayout layout,
            int n) {
        List<GradientCompressor> out = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            out.add(new GradientCompressor(GradientCompression.of(scheme), layout, 1));
        }
        return out;
    }

    private List<float[]> allReduce(List<Communicator> comms, List<GradientCompressor> gcs,
            List<float[]> in, ReduceOp op) throws Exception {
        return rings.runAll(comms, in, (c, a) -> c.allReduce(a, op, gcs.get(c.rank())));
    }

    private static List<Communicator> group(int n) {
        return CommunicatorTest.group(Topology.singleNode(n), Duration.ofSeconds(10));
    }

    private static void assertSameOnEveryRank(List<float[]> out, String what) {
        for (float[] o : out) {
            assertArrayEquals(out.get(0), o, 0f, "ranks disagree: " + what);
        }
    }

    @Test
    void theLayoutSeesMatricesAndVectors() {
        assertEquals(20 * 30 + 20 + 8 * 18 + 6, LAYOUT.elements());
        assertEquals(8, LAYOUT.rows(2));
        assertEquals(18, LAYOUT.cols(2));
        assertEquals(1, LAYOUT.rows(1));
        assertEquals(620, LAYOUT.offset(2));
        PowerSgd p = new PowerSgd(3);
        assertTrue(p.compresses(20, 30) && p.compresses(8, 18));
        assertFalse(p.compresses(1, 20), "a bias travels exactly");
        assertFalse(p.compresses(2, 3), "3 x (2 + 3) >= 6: a rank-3 product is no smaller");
    }

    @Test
    void atFullRankTheResultIsThePlainAverage() throws Exception {
        int length = LAYOUT.elements() + 1;
        for (int n = 1; n <= 4; n++) {
            List<float[]> in = ProbeWorker.randomInputs(n, length, 3 + n);
            List<float[]> out = allReduce(group(n), compressors("powersgd:20", LAYOUT, n), in,
                    ReduceOp.AVERAGE);
            List<float[]> plain = rings.runAll(group(n), in,
                    (c, a) -> c.allReduce(a, ReduceOp.AVERAGE));
            assertSameOnEveryRank(out, "n=" + n);
            assertArrayEquals(plain.get(0), out.get(0), 1e-6f, "n=" + n);
        }
    }

    /**
     * Gradients whose matrices share a column space of rank {@code r} on every rank: a rank-r
     * PowerSGD loses nothing, from the first step and from warm-started ones, on one node and
     * on the hierarchical layout of two.
     */
    @Test
    void gradientsOfAtMostTheRankArriveExactly() throws Exception {
        int r = 3;
        int n = 4;
        Random rnd = new Random(17);
        float[][] basis = {gaussian(rnd, 20 * r), null, gaussian(rnd, 8 * r), null};
        for (Topology topology : List.of(Topology.singleNode(n),
                new Topology(List.of("a", "a", "b", "b")))) {
            List<Communicator> comms = CommunicatorTest.group(topology, Duration.ofSeconds(10));
            List<GradientCompressor> gcs = compressors("powersgd:" + r, LAYOUT, n);
            for (int step = 0; step < 3; step++) {
                List<float[]> in = new ArrayList<>();
                for (int w = 0; w < n; w++) {
                    in.add(lowRank(basis, r, rnd));
                }
                List<float[]> out = allReduce(comms, gcs, in, ReduceOp.SUM);
                assertSameOnEveryRank(out, "step " + step);
                float[] exact = CommunicatorTest.mean(in);
                for (int i = 0; i < exact.length; i++) {
                    // float error, grown by the conditioning of P before it is orthonormalised
                    assertEquals(exact[i] * n, out.get(0)[i], 1e-3 * (1 + Math.abs(exact[i])),
                            topology + " step " + step + " element " + i);
                }
                for (GradientCompressor gc : gcs) {
                    for (float e : gc.residual()) {
                        assertEquals(0, e, 1e-3, "nothing was lost");
                    }
                }
            }
        }
    }

    /** A rank's gradients: each compressed matrix a combination of its basis's columns. */
    private static float[] lowRank(float[][] basis, int r, Random rnd) {
        float[] g = new float[LAYOUT.elements() + 1];
        for (int t = 0; t < LAYOUT.tensors(); t++) {
            int rows = LAYOUT.rows(t);
            int cols = LAYOUT.cols(t);
            float[] v = gaussian(rnd, cols * r);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols; j++) {
                    double x = 0;
                    for (int k = 0; k < r && basis[t] != null; k++) {
                        x += basis[t][i * r + k] * v[j * r + k];
                    }
                    g[LAYOUT.offset(t) + i * cols + j] = basis[t] == null
                            ? (float) rnd.nextGaussian() : (float) x;
                }
            }
        }
        return g;
    }

    private static float[] gaussian(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) rnd.nextGaussian();
        }
        return a;
    }

    /**
     * At rank 1, most of every step's gradients are lost in the projection, yet the results
     * over the steps plus the residuals left equal the sum of every rank's gradients; the flag
     * at the end arrives exactly, and every rank gets the same array.
     */
    @Test
    void resultsAndResidualsTogetherHoldEveryGradient() throws Exception {
        int n = 3;
        int length = LAYOUT.elements() + 1;
        List<Communicator> comms = group(n);
        List<GradientCompressor> gcs = compressors("powersgd:1", LAYOUT, n);
        double[] given = new double[length - 1];
        double[] applied = new double[length - 1];
        double lostFirst = 0;
        for (int step = 0; step < 30; step++) {
            List<float[]> in = ProbeWorker.randomInputs(n, length, 200 + step);
            for (float[] a : in) {
                a[length - 1] = a == in.get(1) && step == 7 ? 1f : 0f;
                for (int i = 0; i < length - 1; i++) {
                    given[i] += a[i];
                }
            }
            List<float[]> out = allReduce(comms, gcs, in, ReduceOp.SUM);
            assertSameOnEveryRank(out, "step " + step);
            assertEquals(step == 7 ? 1f : 0f, out.get(0)[length - 1], 0f, "the flag");
            for (int i = 0; i < length - 1; i++) {
                applied[i] += out.get(0)[i];
            }
            if (step == 0) {
                for (float e : gcs.get(0).residual()) {
                    lostFirst += Math.abs(e);
                }
            }
        }
        assertTrue(lostFirst > 10, "rank 1 really dropped something: " + lostFirst);
        CompressedAllReduceTest.assertHeld(given, applied, gcs, "powersgd");
    }

    @Test
    void theFactorsAreFarFewerBytesThanTheMatrix() throws Exception {
        GradientLayout mlp = GradientLayout.of(List.of(new long[] {256, 784}, new long[] {256}));
        int length = mlp.elements() + 1;
        List<float[]> in = ProbeWorker.randomInputs(2, length, 5);
        long[] bytes = new long[2];
        long[] operations = new long[2];
        String[] schemes = {"none", "powersgd:4"};
        for (int s = 0; s < 2; s++) {
            List<Communicator> comms = group(2);
            allReduce(comms, compressors(schemes[s], mlp, 2), in, ReduceOp.AVERAGE);
            CollectiveStats total = comms.get(0).stats().plus(comms.get(1).stats());
            bytes[s] = total.bytesSent();
            operations[s] = total.operations();
        }
        // the ring sends each rank's half twice: the matrix's 200,704 floats against the
        // factors' 4 x (256 + 784), besides the bias and the flag both send
        double expected = (double) length / (4 * (256 + 784) + 256 + 1);
        assertEquals(expected, (double) bytes[0] / bytes[1], 0.01 * expected);
        assertEquals(2, operations[0], "one all-reduce on each of the 2 ranks");
        assertEquals(4, operations[1], "P and Q: two all-reduces on each rank");
    }

    @Test
    void resetStartsAgainFromTheSeededFactors() throws Exception {
        int length = LAYOUT.elements() + 1;
        List<float[]> first = ProbeWorker.randomInputs(2, length, 1);
        List<float[]> second = ProbeWorker.randomInputs(2, length, 2);
        List<GradientCompressor> used = compressors("powersgd:2", LAYOUT, 2);
        List<Communicator> comms = group(2);
        allReduce(comms, used, first, ReduceOp.SUM);
        used.forEach(GradientCompressor::reset);
        float[] afterReset = allReduce(comms, used, second, ReduceOp.SUM).get(0);
        float[] fresh = allReduce(group(2), compressors("powersgd:2", LAYOUT, 2), second,
                ReduceOp.SUM).get(0);
        assertArrayEquals(fresh, afterReset, 0f);

        // one rank starts afresh (a recovery's new worker), the other keeps its Q: they agree
        used.get(1).reset();
        List<float[]> mixed = allReduce(comms, used, first, ReduceOp.SUM);
        assertSameOnEveryRank(mixed, "one rank reset");
        assertSameOnEveryRank(allReduce(comms, used, second, ReduceOp.SUM), "the step after");
    }

    @Test
    void powerSgdIsNamedAsTheOptionWritesItAndNeedsALayout() throws Exception {
        assertEquals(new PowerSgd(4), GradientCompression.of("PowerSGD:4"));
        assertEquals("powersgd:4", GradientCompression.of("powersgd:4").toString());
        for (String bad : List.of("powersgd:0", "powersgd:1.5", "powersgd:")) {
            assertThrows(DmlException.class, () -> GradientCompression.of(bad), bad);
        }
        assertThrows(IllegalArgumentException.class,
                () -> new GradientCompressor(new PowerSgd(2), 1));
        List<GradientCompressor> wrong = compressors("powersgd:2",
                GradientLayout.of(List.of(new long[] {10})), 2);
        Exception e = assertThrows(Exception.class, () -> allReduce(group(2), wrong,
                ProbeWorker.randomInputs(2, 20, 1), ReduceOp.SUM));
        assertTrue(String.valueOf(e.getCause()).contains("the layout holds 10 elements"),
                String.valueOf(e.getCause()));
    }
}
