package dev.dml.ray.model;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;

/**
 * An optimizer over one flat parameter vector, split into segments (one per DJL parameter).
 * Its state is flat {@code float[]}s indexed like the flat vector, so it saves to bytes exactly,
 * in one format whether it ran in Java over host memory ({@link OnHost}) or as NDArray
 * operations on the parameters' device ({@link DeviceOptimizer}).
 */
abstract class FlatOptimizer {

    /**
     * Whether this JVM resolved the Vector API's module ({@code --add-modules
     * jdk.incubator.vector}, which dml gives its workers): Adam then updates in SIMD lanes.
     */
    static final boolean SIMD = ModuleLayer.boot().findModule("jdk.incubator.vector")
            .isPresent();
    /** Set to false, optimizers opened afterwards stay scalar (bench P16 compares the two). */
    static final String SIMD_PROPERTY = "dml.optimizer.simd";
    /**
     * Segments shorter than this stay scalar: until C2 compiles the lanes' loop, the
     * interpreter runs it far slower than the scalar one, which only a large segment repays.
     */
    static final int SIMD_MIN = 16_384;

    final OptimizerSpec spec;
    long steps;
    /** The learning rate of the current update, from the spec's schedule. */
    float rate;

    FlatOptimizer(OptimizerSpec spec) {
        this.spec = spec;
    }

    /**
     * Starts a step; called once before the segments are updated: clips the gradients to the
     * spec's norm, counts the update and sets its {@link #rate}.
     */
    void beginStep(ParameterBuffers params) {
        if (spec.clipNorm() > 0) {
            params.clipGradients(spec.clipNorm());
        }
        steps++;
        rate = spec.learningRateAt(steps - 1);
    }

    /** Applies one update to every parameter, in place, from its gradient. */
    abstract void apply(ParameterBuffers params);

    /** The state as flat arrays; {@link #read} fills them, then calls {@link #loaded}. */
    abstract float[][] state();

    /** The bytes of state this optimizer holds: 4 per float of its state arrays. */
    long stateBytes() {
        long n = 0;
        for (float[] a : state()) {
            n += a.length;
        }
        return n * Float.BYTES;
    }

    /** Called after {@link #read} filled {@link #state()}. */
    void loaded() {}

    void write(DataOutputStream out) throws IOException {
        out.writeLong(steps);
        float[][] s = state();
        out.writeInt(s.length);
        for (float[] a : s) {
            out.writeInt(a.length);
            for (float f : a) {
                out.writeFloat(f);
            }
        }
    }

    void read(DataInputStream in) throws IOException {
        long t = in.readLong();
        float[][] s = state();
        int n = in.readInt();
        if (n != s.length) {
            throw new IOException("optimizer state has " + n + " arrays, expected " + s.length);
        }
        for (float[] a : s) {
            int len = in.readInt();
            if (len != a.length) {
                throw new IOException("optimizer state of " + len + ", expected " + a.length);
            }
            for (int i = 0; i < len; i++) {
                a[i] = in.readFloat();
            }
        }
        steps = t;
        loaded();
    }

    /** The optimizers that run in Java over host views of the parameters (the CPU path). */
    abstract static class OnHost extends FlatOptimizer {

        OnHost(OptimizerSpec spec) {
            super(spec);
        }

        @Override
        void apply(ParameterBuffers params) {
            params.update(this);
        }

        /**
         * Updates one segment: {@code param} starts at flat index {@code offset}; {@code decay}
         * says whether weight decay applies to it (a weight, not a bias). Both buffers are
         * in native order and are read and written at absolute indices.
         */
        abstract void update(int offset, ByteBuffer param, ByteBuffer grad, boolean decay);
    }

    /** SGD with momentum, PyTorch's formulation. */
    static final class SgdMomentum extends OnHost {

        private final float[] velocity;

        SgdMomentum(OptimizerSpec spec, int n) {
            super(spec);
            this.velocity = new float[spec.momentum() == 0f ? 0 : n];
        }

        @Override
        void update(int offset, ByteBuffer param, ByteBuffer grad, boolean decay) {
            FloatBuffer p = param.asFloatBuffer();
            FloatBuffer g = grad.asFloatBuffer();
            float lr = rate;
            float mu = spec.momentum();
            float wd = decay ? spec.weightDecay() : 0f;
            int n = p.limit();
            if (mu == 0f) {
                for (int i = 0; i < n; i++) {
                    p.put(i, p.get(i) - lr * (g.get(i) + wd * p.get(i)));
                }
                return;
            }
            for (int i = 0; i < n; i++) {
                float v = mu * velocity[offset + i] + (g.get(i) + wd * p.get(i));
                velocity[offset + i] = v;
                p.put(i, p.get(i) - lr * v);
            }
        }

        @Override
        float[][] state() {
            return new float[][] {velocity};
        }
    }

    /**
     * One Adam step's constants: the betas, epsilon, the bias-corrected rate, the square root
     * of the second moment's correction, and the decay factor of the weights (1 for none).
     */
    record AdamStep(float b1, float b2, float eps, float lr, float sc2, float keep) {}

    /** Adam with bias correction. */
    static final class Adam extends OnHost {

        private final float[] m;
        private final float[] v;

        private final boolean simd;

        Adam(OptimizerSpec spec, int n) {
            this(spec, n, SIMD && !"false".equals(System.getProperty(SIMD_PROPERTY)));
        }

        /** With {@code simd} false, always the scalar loop (its tests compare the two). */
        Adam(OptimizerSpec spec, int n, boolean simd) {
            super(spec);
            this.m = new float[n];
            this.v = new float[n];
            this.simd = simd;
        }

        @Override
        void update(int offset, ByteBuffer param, ByteBuffer grad, boolean decay) {
            float b1 = spec.beta1();
            float b2 = spec.beta2();
            float c1 = (float) (1 - StrictMath.pow(b1, steps));
            float c2 = (float) (1 - StrictMath.pow(b2, steps));
            // decoupled (AdamW): the weights shrink by the scheduled rate, apart from the moments
            AdamStep c = new AdamStep(b1, b2, spec.epsilon(), rate / c1, (float) Math.sqrt(c2),
                    decay ? 1 - rate * spec.weightDecay() : 1f);
            int n = param.limit() / Float.BYTES;
            int done = simd && n >= SIMD_MIN ? VectorAdam.update(param, grad, m, v, offset, n, c)
                    : 0;
            FloatBuffer p = param.asFloatBuffer();
            FloatBuffer g = grad.asFloatBuffer();
            for (int i = done; i < n; i++) {
                int j = offset + i;
                if (c.keep() != 1f) {
                    p.put(i, p.get(i) * c.keep());
                }
                float gi = g.get(i);
                float mi = b1 * m[j] + (1 - b1) * gi;
                float vi = b2 * v[j] + (1 - b2) * gi * gi;
                m[j] = mi;
                v[j] = vi;
                p.put(i, p.get(i) - c.lr() * mi / ((float) Math.sqrt(vi) / c.sc2() + c.eps()));
            }
        }

        @Override
        float[][] state() {
            return new float[][] {m, v};
        }
    }
}
