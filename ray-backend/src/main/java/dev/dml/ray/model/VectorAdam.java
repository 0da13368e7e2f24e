package dev.dml.ray.model;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link FlatOptimizer.Adam}'s update in SIMD lanes (the JDK's Vector API): the same float
 * operations in the same order, so bitwise the same parameters and moments, several times
 * faster, because C2 leaves the scalar loop's float square root and division unvectorised and
 * that loop was most of an MLP's step on the CPU (bench P15). Loaded only where the JVM
 * resolved {@code jdk.incubator.vector} ({@link FlatOptimizer#SIMD}).
 */
final class VectorAdam {

    private static final VectorSpecies<Float> LANES = FloatVector.SPECIES_PREFERRED;
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private VectorAdam() {}

    /**
     * Updates the first whole lanes' worth of a segment; the caller's scalar loop does the
     * rest.
     *
     * @param p the parameters, native order, in place
     * @param g their gradients, native order
     * @param m the first moments of the whole model, at {@code offset} for this segment
     * @param v the second moments, likewise
     * @param n the segment's length
     * @param c the step's constants
     * @return how many leading elements were updated
     */
    static int update(ByteBuffer p, ByteBuffer g, float[] m, float[] v, int offset, int n,
            FlatOptimizer.AdamStep c) {
        int upper = LANES.loopBound(n);
        for (int i = 0; i < upper; i += LANES.length()) {
            int j = offset + i;
            FloatVector gi = FloatVector.fromByteBuffer(LANES, g, i * Float.BYTES, ORDER);
            FloatVector mi = FloatVector.fromArray(LANES, m, j).mul(c.b1())
                    .add(gi.mul(1 - c.b1()));
            FloatVector vi = FloatVector.fromArray(LANES, v, j).mul(c.b2())
                    .add(gi.mul(1 - c.b2()).mul(gi));
            mi.intoArray(m, j);
            vi.intoArray(v, j);
            FloatVector pi = FloatVector.fromByteBuffer(LANES, p, i * Float.BYTES, ORDER);
            if (c.keep() != 1f) {
                pi = pi.mul(c.keep());
            }
            pi = pi.sub(mi.mul(c.lr()).div(vi.sqrt().div(c.sc2()).add(c.eps())));
            pi.intoByteBuffer(p, i * Float.BYTES, ORDER);
        }
        return upper;
    }
}
