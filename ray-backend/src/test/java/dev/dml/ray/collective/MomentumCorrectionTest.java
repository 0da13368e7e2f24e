package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Top-k as Deep Gradient Compression runs it: the residual carries the velocity, momentum is
 * masked where an element was sent, gradients are clipped locally, and the share sent warms up.
 */
class MomentumCorrectionTest {

    private final CommunicatorTest rings = new CommunicatorTest();

    @AfterEach
    void tearDown() throws InterruptedException {
        rings.tearDown();
    }

    /** One all-reduce (sum) of one array per rank, each with the last element as the flag. */
    private List<float[]> step(List<Communicator> comms, List<GradientCompressor> gcs,
            List<float[]> in) throws Exception {
        return rings.runAll(comms, in, (c, a) -> c.allReduce(a, ReduceOp.SUM,
                gcs.get(c.rank())));
    }

    private static List<Communicator> group(int n) {
        return CommunicatorTest.group(Topology.singleNode(n), Duration.ofSeconds(10));
    }

    private static GradientCompressor sgd(String scheme, float mu, float clip, int workers) {
        return new GradientCompressor(GradientCompression.of(scheme), null, 1,
                new MomentumCorrection.Sgd(mu, clip), workers);
    }

    /**
     * With momentum 0.5 and one element of four sent: the velocity, not the gradient, is what
     * is sent and what the residual keeps, and the sent element's momentum is cleared.
     */
    @Test
    void theResidualCarriesTheVelocityAndSentMomentumIsMasked() throws Exception {
        List<Communicator> comms = group(1);
        GradientCompressor gc = sgd("topk:0.25", 0.5f, 0, 1);
        float[] g = {4, 3, 2, 1, 0};
        float[] first = step(comms, List.of(gc), List.of(g.clone())).get(0);
        assertArrayEquals(new float[] {4, 0, 0, 0, 0}, first, 0f);
        assertArrayEquals(new float[] {0, 3, 2, 1}, gc.residual(), 0f);
        assertArrayEquals(new float[] {0, 3, 2, 1}, gc.momentum(), 0f, "element 0 masked");
        // u = 0.5 u + g = {4, 4.5, 3, 1.5}; v = residual + u = {4, 7.5, 5, 2.5}
        float[] second = step(comms, List.of(gc), List.of(g.clone())).get(0);
        assertArrayEquals(new float[] {0, 7.5f, 0, 0, 0}, second, 0f);
        assertArrayEquals(new float[] {4, 0, 5, 2.5f}, gc.residual(), 0f);
        assertArrayEquals(new float[] {4, 0, 3, 1.5f}, gc.momentum(), 0f);
        gc.reset();
        assertArrayEquals(new float[4], gc.momentum(), 0f, "reset clears the momentum too");
    }

    /**
     * Nothing is lost, only delayed: over the steps the sums applied plus every rank's residual
     * equal the sum of every rank's velocities, which a momentum without masking would give.
     */
    @Test
    void theResultsAndResidualsHoldEveryVelocity() throws Exception {
        int n = 3;
        int length = 1001;
        float mu = 0.9f;
        List<Communicator> comms = group(n);
        List<GradientCompressor> gcs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            gcs.add(sgd("topk:0.02", mu, 0, n));
        }
        double[] applied = new double[length - 1];
        double[] velocities = new double[length - 1];
        for (int t = 0; t < 30; t++) {
            List<float[]> in = ProbeWorker.randomInputs(n, length, 300 + t);
            for (float[] a : in) {
                a[length - 1] = 0;
            }
            List<float[]> momentaBefore = new ArrayList<>();
            gcs.forEach(gc -> momentaBefore.add(gc.momentum()));
            float[] out = step(comms, gcs, copies(in)).get(0);
            for (int r = 0; r < n; r++) {
                float[] before = momentaBefore.get(r);
                for (int i = 0; i < length - 1; i++) {
                    float u = before.length == 0 ? 0 : before[i];
                    velocities[i] += mu * u + in.get(r)[i]; // the masked momentum, then g
                }
            }
            for (int i = 0; i < length - 1; i++) {
                applied[i] += out[i];
            }
        }
        CompressedAllReduceTest.assertHeld(velocities, applied, gcs, "velocity");
    }

    @Test
    void eachWorkerClipsItsGradientToTheNormOverTheRootOfTheWorkers() throws Exception {
        GradientCompressor gc = sgd("topk:1", 0f, 2f, 4); // 2 / sqrt(4) = 1
        float[] out = step(group(1), List.of(gc), List.of(new float[] {3, 4, 0})).get(0);
        assertArrayEquals(new float[] {0.6f, 0.8f, 0}, out, 1e-6f);
        GradientCompressor small = sgd("topk:1", 0f, 2f, 4);
        out = step(group(1), List.of(small), List.of(new float[] {0.3f, 0.4f, 0})).get(0);
        assertArrayEquals(new float[] {0.3f, 0.4f, 0}, out, 0f, "a norm below it is kept");
    }

    /**
     * Adam's direction, {@code m̂ / (sqrt(v̂) + eps)}, is what travels and what the residual
     * keeps: about ±1 for every element on the first step, whatever the gradient's scale.
     */
    @Test
    void withAdamTheResidualKeepsTheNormalisedDirection() throws Exception {
        GradientCompressor gc = adam("topk:0.25");
        float[] out = step(group(1), List.of(gc), List.of(new float[] {1000, -0.001f, 2, 3,
                0})).get(0);
        assertEquals(1f, out[0], 1e-4f);
        assertArrayEquals(new float[] {0, -1, 1, 1}, gc.residual(), 1e-4f);
        assertArrayEquals(new float[] {0, -1e-4f, 0.2f, 0.3f}, gc.momentum(), 1e-6f,
                "the first moment, masked where sent");
    }

    /**
     * With Adam, top-k picks by the kept direction times the first moment: an element with a
     * large gradient goes before one whose (normalised) kept direction is larger but whose
     * gradient is a thousand times smaller.
     */
    @Test
    void withAdamTopKPicksByTheDirectionTimesTheFirstMoment() throws Exception {
        GradientCompressor gc = adam("topk:0.25");
        List<Communicator> one = group(1);
        step(one, List.of(gc), List.of(new float[] {1000, 1, 0, 0, 0})); // sends element 0
        assertArrayEquals(new float[] {0, 1, 0, 0}, gc.residual(), 1e-4f);
        // element 0's momentum restarts after the masking: its direction is about 0.53;
        // element 1 keeps 2 (two steps of 1), but its first moment is 0.19 against 100
        float[] out = step(one, List.of(gc), List.of(new float[] {1000, 1, 0, 0, 0})).get(0);
        assertEquals(0.526f, out[0], 1e-3f);
        assertEquals(0f, out[1], 0f);
        assertEquals(2f, gc.residual()[1], 1e-3f);
    }

    private static GradientCompressor adam(String scheme) {
        return new GradientCompressor(GradientCompression.of(scheme), null, 1,
                new MomentumCorrection.Adam(0.9f, 0.999f, 1e-8f, 0), 1);
    }

    @Test
    void theShareSentFallsGeometricallyOverTheWarmUp() {
        TopK t = new TopK(0.01, 2);
        assertEquals(0.25, t.ratioAt(0), 1e-12);
        assertEquals(0.05, t.ratioAt(1), 1e-12, "halfway: the geometric mean");
        assertEquals(0.01, t.ratioAt(2), 1e-12);
        assertEquals(0.01, t.ratioAt(7), 1e-12);
        assertTrue(t.ratioAt(0.5) < 0.25 && t.ratioAt(0.5) > t.ratioAt(1.5));
        assertEquals(0.01, new TopK(0.01).ratioAt(0), 0, "no warm-up");
        assertEquals(0.5, new TopK(0.5, 3).ratioAt(0), 0, "never denser than asked");
        assertEquals(new TopK(0.01, 0.5), GradientCompression.of("TOPK:0.01:0.5"));
        assertEquals("topk:0.01:0.5", new TopK(0.01, 0.5).toString());
        assertThrows(dev.dml.DmlException.class, () -> GradientCompression.of("topk:0.01:-1"));
    }

    /** The warm-up's denser encodings travel, and are counted, as the progress says. */
    @Test
    void theBytesOnTheWireFollowTheWarmUp() throws Exception {
        int length = 20_001;
        List<float[]> in = ProbeWorker.randomInputs(2, length, 9);
        long[] bytes = new long[3];
        double[] progress = {0, 1, 2};
        for (int p = 0; p < 3; p++) {
            List<Communicator> comms = group(2);
            List<GradientCompressor> gcs = List.of(sgd("topk:0.01:2", 0.9f, 0, 2),
                    sgd("topk:0.01:2", 0.9f, 0, 2));
            for (GradientCompressor gc : gcs) {
                gc.setProgress(progress[p]);
            }
            step(comms, gcs, copies(in));
            bytes[p] = comms.get(0).stats().bytesSent();
        }
        // pairs of 1-2 bytes of index gap and 4 of value, and the count and the flag
        assertEquals(5000 * 5 + 8, bytes[0], 5000 * 0.3, "25 % at the start");
        assertEquals(1000 * 5.5 + 8, bytes[1], 1000 * 0.6, "5 % halfway");
        assertEquals(200 * 5.3 + 8, bytes[2], 200 * 0.3, "1 % after");
    }

    @Test
    void onlyTopKTakesAMomentumCorrection() {
        assertThrows(IllegalArgumentException.class, () -> new GradientCompressor(
                GradientCompression.of("int8"), null, 1, new MomentumCorrection.Sgd(0.9f, 0), 2));
    }

    private static List<float[]> copies(List<float[]> in) {
        List<float[]> out = new ArrayList<>();
        in.forEach(a -> out.add(a.clone()));
        return out;
    }
}
