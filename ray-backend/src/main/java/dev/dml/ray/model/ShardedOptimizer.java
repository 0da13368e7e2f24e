package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A host optimizer that updates only some ranges of the flat parameters and keeps state for
 * those ranges only: one range {@code [from, to)} under ZeRO-1, one range in each gradient
 * bucket under ZeRO-2 ({@link OptimizerShard}). The state of the ranges lies end to end, in
 * their order. Each element gets the operations of the unsharded optimizer in the same order,
 * so equal gradients give bitwise equal parameters and moments. Its state saves and loads in
 * the unsharded format: saving all-gathers every rank's ranges into whole arrays, and loading
 * keeps these ranges of them, so a sharded job's state resumes unsharded, on any number of
 * ranks, and back.
 */
final class ShardedOptimizer extends FlatOptimizer {

    private final OnHost inner;
    private final int total;
    /** The ranges, as pairs {@code from, to}, ascending and apart. */
    private final int[] ranges;
    /** Where each range's state (and its place in a packed array) starts, and the sum last. */
    private final int[] packed;
    private final OptimizerShard.Peers peers;

    ShardedOptimizer(OptimizerSpec spec, int total, int[] ranges, OptimizerShard.Peers peers) {
        super(spec);
        this.total = total;
        this.ranges = ranges.clone();
        this.packed = new int[ranges.length / 2 + 1];
        for (int j = 0; j < ranges.length / 2; j++) {
            packed[j + 1] = packed[j] + ranges[2 * j + 1] - ranges[2 * j];
        }
        this.inner = (OnHost) spec.newOptimizer(packed[packed.length - 1]);
        this.peers = peers;
    }

    /** Whether this optimizer updates exactly {@code ranges} (pairs {@code from, to}). */
    boolean covers(int[] lohi) {
        return java.util.Arrays.equals(ranges, lohi);
    }

    /** The elements it updates: the length of a packed array of its ranges. */
    int owned() {
        return packed[packed.length - 1];
    }

    /**
     * One update of the ranges from the reduced gradients in {@code buf}, which hold the
     * updated parameters there on return. Clipping takes the global norm over every rank.
     *
     * @param buf a whole flat array, the ranges at their own places; or, {@code packedBuf}, the
     *     ranges end to end
     */
    void step(ParameterBuffers params, float[] buf, boolean packedBuf) {
        if (spec.clipNorm() > 0) {
            clip(buf, packedBuf);
        }
        steps++;
        rate = spec.learningRateAt(steps - 1);
        inner.steps = steps;
        inner.rate = rate;
        for (int j = 0; j < ranges.length / 2; j++) {
            int from = ranges[2 * j];
            int to = ranges[2 * j + 1];
            // buf[at + x] holds flat element x of this range
            int at = packedBuf ? packed[j] - from : 0;
            for (int i = 0; i < params.parameters().size(); i++) {
                int start = params.offset(i);
                int lo = Math.max(from, start);
                int hi = Math.min(to, params.offset(i + 1));
                if (lo >= hi) {
                    continue;
                }
                NDArray a = params.parameters().get(i).getArray();
                ByteBuffer p = slice(a, lo - start, hi - lo);
                try (NDArray g = a.getGradient()) {
                    ByteBuffer grad = slice(g, lo - start, hi - lo);
                    grad.asFloatBuffer().put(buf, at + lo, hi - lo);
                    inner.update(packed[j] + lo - from, p, grad, params.decays(i));
                }
                p.asFloatBuffer().get(buf, at + lo, hi - lo);
            }
        }
    }

    /** As {@link ParameterBuffers#clipGradients}, over the norm of every rank's ranges. */
    private void clip(float[] buf, boolean packedBuf) {
        double squares = 0;
        for (int j = 0; j < ranges.length / 2; j++) {
            int at = packedBuf ? packed[j] : ranges[2 * j];
            for (int i = at; i < at + packed[j + 1] - packed[j]; i++) {
                double x = buf[i];
                squares += x * x;
            }
        }
        double norm = Math.sqrt(peers.sumOverRanks(squares));
        if (norm > spec.clipNorm()) {
            float scale = (float) (spec.clipNorm() / norm);
            for (int j = 0; j < ranges.length / 2; j++) {
                int at = packedBuf ? packed[j] : ranges[2 * j];
                for (int i = at; i < at + packed[j + 1] - packed[j]; i++) {
                    buf[i] *= scale;
                }
            }
        }
    }

    /** Elements {@code [at, at + n)} of a CPU tensor's own memory, in native order. */
    private static ByteBuffer slice(NDArray a, int at, int n) {
        return a.toByteBuffer(true).slice(at * Float.BYTES, n * Float.BYTES)
                .order(ByteOrder.nativeOrder());
    }

    @Override
    void apply(ParameterBuffers params) {
        throw new IllegalStateException("a sharded optimizer steps through OptimizerShard.step");
    }

    @Override
    float[][] state() {
        return inner.state();
    }

    /** Writes the whole state, gathered from every rank: call it on every rank at once. */
    @Override
    void write(DataOutputStream out) throws IOException {
        FlatOptimizer whole = spec.newOptimizer(total);
        float[][] mine = inner.state();
        float[][] all = whole.state();
        for (int k = 0; k < all.length; k++) {
            if (all[k].length > 0) {
                copy(mine[k], all[k], true);
                peers.allGather(all[k]);
            }
        }
        whole.steps = steps;
        whole.write(out);
    }

    /** Reads a whole state and keeps these ranges of it. */
    @Override
    void read(DataInputStream in) throws IOException {
        FlatOptimizer whole = spec.newOptimizer(total);
        whole.read(in);
        float[][] mine = inner.state();
        float[][] all = whole.state();
        for (int k = 0; k < all.length; k++) {
            if (all[k].length > 0) {
                copy(mine[k], all[k], false);
            }
        }
        steps = whole.steps;
        inner.steps = steps;
    }

    /** Copies each range between its packed place in {@code mine} and its own in {@code all}. */
    private void copy(float[] mine, float[] all, boolean toAll) {
        for (int j = 0; j < ranges.length / 2; j++) {
            int n = packed[j + 1] - packed[j];
            if (toAll) {
                System.arraycopy(mine, packed[j], all, ranges[2 * j], n);
            } else {
                System.arraycopy(all, ranges[2 * j], mine, packed[j], n);
            }
        }
    }
}
