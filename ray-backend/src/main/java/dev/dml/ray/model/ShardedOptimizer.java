package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A host optimizer that updates only the range {@code [from, to)} of the flat parameters and
 * keeps state for that range only (ZeRO-1; {@link OptimizerShard}). Each element gets the
 * operations of the unsharded optimizer in the same order, so equal gradients give bitwise
 * equal parameters and moments. Its state saves and loads in the unsharded format: saving
 * all-gathers every rank's range into whole arrays, and loading keeps this range of them, so a
 * sharded job's state resumes unsharded, on any number of ranks, and back.
 */
final class ShardedOptimizer extends FlatOptimizer {

    private final OnHost inner;
    private final int total;
    private final int from;
    private final int to;
    private final OptimizerShard.Peers peers;

    ShardedOptimizer(OptimizerSpec spec, int total, int from, int to,
            OptimizerShard.Peers peers) {
        super(spec);
        this.inner = (OnHost) spec.newOptimizer(to - from);
        this.total = total;
        this.from = from;
        this.to = to;
        this.peers = peers;
    }

    /** Whether this optimizer updates exactly {@code [lo, hi)}. */
    boolean covers(int lo, int hi) {
        return from == lo && to == hi;
    }

    /**
     * One update of the range: {@code buf[from, to)} holds the reduced gradients on entry and
     * the updated parameters on return. Clipping takes the global norm over every rank.
     */
    void step(ParameterBuffers params, float[] buf) {
        if (spec.clipNorm() > 0) {
            clip(buf);
        }
        steps++;
        rate = spec.learningRateAt(steps - 1);
        inner.steps = steps;
        inner.rate = rate;
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
                grad.asFloatBuffer().put(buf, lo, hi - lo);
                inner.update(lo - from, p, grad, params.decays(i));
            }
            p.asFloatBuffer().get(buf, lo, hi - lo);
        }
    }

    /** As {@link ParameterBuffers#clipGradients}, over the norm of every rank's range. */
    private void clip(float[] buf) {
        double squares = 0;
        for (int i = from; i < to; i++) {
            double x = buf[i];
            squares += x * x;
        }
        double norm = Math.sqrt(peers.sumOverRanks(squares));
        if (norm > spec.clipNorm()) {
            float scale = (float) (spec.clipNorm() / norm);
            for (int i = from; i < to; i++) {
                buf[i] *= scale;
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
                System.arraycopy(mine[k], 0, all[k], from, to - from);
                peers.allGather(all[k]);
            }
        }
        whole.steps = steps;
        whole.write(out);
    }

    /** Reads a whole state and keeps this range of it. */
    @Override
    void read(DataInputStream in) throws IOException {
        FlatOptimizer whole = spec.newOptimizer(total);
        whole.read(in);
        float[][] mine = inner.state();
        float[][] all = whole.state();
        for (int k = 0; k < all.length; k++) {
            if (all[k].length > 0) {
                System.arraycopy(all[k], from, mine[k], 0, to - from);
            }
        }
        steps = whole.steps;
        inner.steps = steps;
    }
}
