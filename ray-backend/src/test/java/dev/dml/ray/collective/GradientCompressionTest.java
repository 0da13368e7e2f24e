package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Each scheme's encoding on its own: round trips within its stated error, and its losses. */
class GradientCompressionTest {

    /** Values over many magnitudes, as gradients of different layers have. */
    static float[] gradients(int n, long seed) {
        Random rnd = new Random(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (rnd.nextGaussian() * Math.pow(10, -1 - 3 * rnd.nextDouble()));
        }
        return a;
    }

    @Test
    void everyHalfSurvivesARoundTripAndRoundingIsToNearestEven() {
        for (int h = 0; h < 0x10000; h++) {
            float f = HalfFloats.fromHalf((short) h);
            if (!Float.isNaN(f)) {
                assertEquals((short) h, HalfFloats.toHalf(f), "half 0x" + Integer.toHexString(h));
            }
            float b = HalfFloats.fromBfloat16((short) h);
            if (!Float.isNaN(b)) {
                assertEquals((short) h, HalfFloats.toBfloat16(b));
            }
        }
        assertEquals(0x3c00, HalfFloats.toHalf(1f));
        assertEquals(0x3c00, HalfFloats.toHalf(1f + 0x1p-11f), "a tie goes to the even half");
        assertEquals(0x3c02, HalfFloats.toHalf(1f + 0x3p-11f), "a tie goes to the even half");
        assertEquals(0x3c01, HalfFloats.toHalf(1f + 0x1.8p-11f));
        assertEquals(0x7bff, HalfFloats.toHalf(65504f));
        assertEquals(0x7c00, HalfFloats.toHalf(65520f));
        assertEquals(0x0001, HalfFloats.toHalf(0x1p-24f));
        assertEquals(0x0000, HalfFloats.toHalf(0x1p-25f));
        assertEquals(0x0001, HalfFloats.toHalf(0x1.8p-25f));
        assertTrue(Float.isNaN(HalfFloats.fromHalf(HalfFloats.toHalf(Float.NaN))));
        assertTrue(Float.isNaN(HalfFloats.fromBfloat16(HalfFloats.toBfloat16(Float.NaN))));
    }

    @Test
    void denseCodecsRoundTripWithinTheirErrorAndFeedBackExactlyWhatTheyLost() {
        float[] x = gradients(5000, 1);
        x[17] = 1e6f; // past fp16's range: clamped, the rest kept as loss
        for (DenseCodec c : new DenseCodec[] {new DenseCodec.Fp16(), new DenseCodec.Bf16(),
                new DenseCodec.Int8()}) {
            ByteBuffer out = ByteBuffer.allocate(c.encodedBytes(x.length - 10))
                    .order(ByteOrder.LITTLE_ENDIAN);
            float[] lost = new float[x.length];
            c.encode(x, 10, x.length, out, lost);
            assertEquals(out.capacity(), out.position(), c + " fills what it announced");
            float[] y = new float[x.length];
            c.decode(out.flip(), y, 10, x.length, false);
            for (int i = 0; i < 10; i++) {
                assertEquals(0f, lost[i] + y[i], "outside the range");
            }
            for (int i = 10; i < x.length; i++) {
                assertEquals(x[i], y[i] + lost[i], Math.ulp(x[i]), c + " loss at " + i);
                assertTrue(Math.abs(x[i] - y[i]) <= bound(c, x, i), c + " at " + i + ": "
                        + x[i] + " vs " + y[i]);
            }
            float[] added = y.clone();
            c.decode(ByteBuffer.wrap(out.array()).order(ByteOrder.LITTLE_ENDIAN), added, 10,
                    x.length, true);
            assertEquals(2 * y[100], added[100], "decode can add");
        }
        assertEquals(5000 / 4.0 * 1.0, new DenseCodec.Int8().encodedBytes(5000) / 4.0, 5);
    }

    /** The error each codec promises for {@code x[i]}. */
    private static double bound(DenseCodec c, float[] x, int i) {
        double a = Math.abs(x[i]);
        if (c instanceof DenseCodec.Fp16) {
            return a > DenseCodec.Fp16.MAX ? a - DenseCodec.Fp16.MAX
                    : Math.max(a * 0x1p-11, 0x1p-25);
        }
        if (c instanceof DenseCodec.Bf16) {
            return a * 0x1p-8;
        }
        int b = 10 + (i - 10) / DenseCodec.Int8.BLOCK * DenseCodec.Int8.BLOCK;
        double max = 0;
        for (int j = b; j < Math.min(x.length, b + DenseCodec.Int8.BLOCK); j++) {
            max = Math.max(max, Math.abs(x[j]));
        }
        return max / 254 * 1.0001;
    }

    @Test
    void topKSendsExactlyTheLargestAndKeepsTheRest() {
        float[] x = gradients(100_000, 2);
        x[99_999] = 5f; // a large gap: a varint of three bytes
        TopK t = new TopK(0.01);
        assertEquals(1000, t.count(x.length));
        ByteBuffer out = ByteBuffer.allocate(t.maxBytes(x.length)).order(ByteOrder.LITTLE_ENDIAN);
        float[] lost = new float[x.length];
        t.encode(x, x.length, out, lost);
        float[] y = new float[x.length];
        TopK.decodeAdd(out.flip(), y);
        float[] sorted = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            sorted[i] = Math.abs(x[i]);
        }
        Arrays.sort(sorted);
        float threshold = sorted[x.length - 1000];
        int sent = 0;
        for (int i = 0; i < x.length; i++) {
            if (y[i] != 0) {
                sent++;
                assertEquals(x[i], y[i]);
                assertTrue(Math.abs(x[i]) >= threshold);
                assertEquals(0f, lost[i]);
            } else {
                assertTrue(Math.abs(x[i]) <= threshold);
                assertEquals(x[i], lost[i]);
            }
        }
        assertEquals(1000, sent);
        assertTrue(out.limit() < 1000 * 6 + 4, "at most 2-byte gaps on average: " + out.limit());
        assertEquals(threshold, TopK.kthLargestMagnitude(x, x.length, 1000));
    }

    @Test
    void topKBreaksTiesByIndexAndSendsOneOfAConstantArray() {
        float[] x = new float[10];
        Arrays.fill(x, 0.5f);
        TopK t = new TopK(0.3);
        ByteBuffer out = ByteBuffer.allocate(t.maxBytes(10)).order(ByteOrder.LITTLE_ENDIAN);
        float[] lost = new float[10];
        t.encode(x, 10, out, lost);
        float[] y = new float[10];
        TopK.decodeAdd(out.flip(), y);
        assertEquals(0.5f * 3, y[0] + y[1] + y[2]);
        assertEquals(0.5f * 7, sum(lost));
    }

    /**
     * Error feedback: over many steps the sum of what was decoded follows the sum of the true
     * gradients, while without it the losses pile up (top-k would never send small elements).
     */
    @Test
    void errorFeedbackMakesTheDecodedSumFollowTheTrueSum() {
        for (GradientCompression c : new GradientCompression[] {new DenseCodec.Fp16(),
                new DenseCodec.Bf16(), new DenseCodec.Int8(), new TopK(0.01)}) {
            double with = driftAfterSteps(c, true);
            double without = driftAfterSteps(c, false);
            System.out.printf("%s: drift %.5f with error feedback, %.5f without%n", c, with,
                    without);
            // what stays behind is at most a step's worth: a small part of 300 steps' sum
            assertTrue(with < (c instanceof TopK ? 0.1 : 0.01), c + " drifts " + with);
            if (!(c instanceof DenseCodec.Fp16)) {
                assertTrue(without > 3 * with, c + ": without " + without + ", with " + with);
            }
        }
    }

    /** The relative distance of the decoded sum from the true sum after 300 steps. */
    private static double driftAfterSteps(GradientCompression c, boolean feedBack) {
        int n = 4000;
        float[] mean = gradients(n, 3);
        Random rnd = new Random(4);
        double[] trueSum = new double[n];
        double[] decodedSum = new double[n];
        GradientCompressor gc = new GradientCompressor(c, 0);
        for (int step = 0; step < 300; step++) {
            float[] g = new float[n];
            for (int i = 0; i < n; i++) {
                g[i] = mean[i] + (float) (rnd.nextGaussian() * Math.abs(mean[i]));
                trueSum[i] += g[i];
            }
            float[] v = g.clone();
            float[] lost = gc.feedBack(v, n);
            float[] y = new float[n];
            ByteBuffer out;
            if (c instanceof DenseCodec d) {
                out = ByteBuffer.allocate(d.encodedBytes(n)).order(ByteOrder.LITTLE_ENDIAN);
                d.encode(v, 0, n, out, feedBack ? lost : null);
                d.decode(out.flip(), y, 0, n, false);
            } else {
                TopK t = (TopK) c;
                out = ByteBuffer.allocate(t.maxBytes(n)).order(ByteOrder.LITTLE_ENDIAN);
                t.encode(v, n, out, feedBack ? lost : null);
                TopK.decodeAdd(out.flip(), y);
            }
            for (int i = 0; i < n; i++) {
                decodedSum[i] += y[i];
            }
        }
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < n; i++) {
            diff += (trueSum[i] - decodedSum[i]) * (trueSum[i] - decodedSum[i]);
            norm += trueSum[i] * trueSum[i];
        }
        return Math.sqrt(diff / norm);
    }

    @Test
    void schemesAreNamedAsTheOptionWritesThem() {
        assertInstanceOf(GradientCompression.None.class, GradientCompression.of("none"));
        assertEquals("fp16", GradientCompression.of("FP16").toString());
        assertEquals(new TopK(0.01), GradientCompression.of("topk:0.01"));
        assertEquals(false, GradientCompression.of("none").lossy());
        assertEquals(true, GradientCompression.of("int8").lossy());
        DmlException e = assertThrows(DmlException.class,
                () -> GradientCompression.of("topk:2"));
        assertEquals("Unknown gradient compression 'topk:2'.", e.what());
    }

    private static float sum(float[] a) {
        float s = 0;
        for (float v : a) {
            s += v;
        }
        return s;
    }
}
