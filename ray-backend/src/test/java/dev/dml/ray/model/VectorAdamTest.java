package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Adam in SIMD lanes against its scalar loop: bitwise the same parameters and moments over
 * several steps, with and without weight decay, on segments whose lengths are not a whole
 * number of lanes and on segments too short for lanes.
 */
class VectorAdamTest {

    /** Two weights of odd sizes (lanes and a scalar tail) and a bias under SIMD_MIN. */
    private static final int[] SEGMENTS = {2 * FlatOptimizer.SIMD_MIN + 7,
        FlatOptimizer.SIMD_MIN + 3, 37};

    @Test
    void theTestJvmResolvedTheVectorModuleAsWorkersDo() {
        assertTrue(FlatOptimizer.SIMD, "surefire's argLine adds jdk.incubator.vector, as"
                + " RayCluster adds it to every worker JVM");
    }

    @Test
    void lanesAndTheScalarLoopGiveBitwiseTheSameUpdates() {
        OptimizerSpec spec = OptimizerSpec.adam(3e-3f).withWeightDecay(0.01f);
        int n = 0;
        for (int s : SEGMENTS) {
            n += s;
        }
        FlatOptimizer.Adam lanes = new FlatOptimizer.Adam(spec, n, true);
        FlatOptimizer.Adam scalar = new FlatOptimizer.Adam(spec, n, false);
        ByteBuffer[] p1 = new ByteBuffer[SEGMENTS.length];
        ByteBuffer[] p2 = new ByteBuffer[SEGMENTS.length];
        SplittableRandom rnd = new SplittableRandom(11);
        for (int s = 0; s < SEGMENTS.length; s++) {
            p1[s] = floats(SEGMENTS[s], rnd, 1f);
            p2[s] = ByteBuffer.allocateDirect(p1[s].capacity()).order(ByteOrder.nativeOrder());
            p2[s].put(p1[s].duplicate()).clear();
        }
        for (int step = 0; step < 5; step++) {
            for (FlatOptimizer.Adam a : new FlatOptimizer.Adam[] {lanes, scalar}) {
                a.steps++;
                a.rate = spec.learningRateAt(a.steps - 1);
            }
            int offset = 0;
            for (int s = 0; s < SEGMENTS.length; s++) {
                ByteBuffer g = floats(SEGMENTS[s], rnd, 0.1f);
                boolean decay = s < 2; // the weights decay, the bias does not
                lanes.update(offset, p1[s], g, decay);
                scalar.update(offset, p2[s], g, decay);
                offset += SEGMENTS[s];
            }
        }
        for (int s = 0; s < SEGMENTS.length; s++) {
            assertArrayEquals(array(p2[s]), array(p1[s]), "segment " + s);
        }
        float[][] a = lanes.state();
        float[][] b = scalar.state();
        assertArrayEquals(b[0], a[0], "first moments");
        assertArrayEquals(b[1], a[1], "second moments");
    }

    private static ByteBuffer floats(int n, SplittableRandom rnd, float scale) {
        ByteBuffer b = ByteBuffer.allocateDirect(n * Float.BYTES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            b.putFloat(i * Float.BYTES, (float) (rnd.nextGaussian() * scale));
        }
        return b;
    }

    private static float[] array(ByteBuffer b) {
        float[] out = new float[b.capacity() / Float.BYTES];
        b.asFloatBuffer().get(out);
        return out;
    }
}
