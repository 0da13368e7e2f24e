package dev.dml.ray.collective;

import java.util.Arrays;

/**
 * One worker's state for a {@link MomentumCorrection}: SGD's velocity, or Adam's two moments
 * and step count, over the compressed elements. Lives in the worker's memory beside the
 * residual, and starts again at zero with it.
 */
final class Velocity {

    private final MomentumCorrection kind;
    /** The clip norm of one worker's gradient: {@code C / sqrt(N)}; 0 does not clip. */
    private final double clip;
    /** SGD's velocity, or Adam's first moment. */
    private float[] first = new float[0];
    /** Adam's second moment; unused for SGD. */
    private float[] second = new float[0];
    private long steps;

    Velocity(MomentumCorrection kind, int workers) {
        this.kind = kind;
        this.clip = kind.clipNorm() > 0 ? kind.clipNorm() / Math.sqrt(Math.max(1, workers)) : 0;
    }

    /**
     * Replaces the local gradient in {@code buf[0, m)} by this worker's update direction:
     * clipped, then through the momentum.
     */
    void advance(float[] buf, int m) {
        if (first.length != m) {
            first = new float[m];
            second = new float[kind instanceof MomentumCorrection.Adam ? m : 0];
            steps = 0;
        }
        clip(buf, m);
        steps++;
        if (kind instanceof MomentumCorrection.Sgd s) {
            float mu = s.momentum();
            for (int i = 0; i < m; i++) {
                first[i] = mu * first[i] + buf[i];
                buf[i] = first[i];
            }
            return;
        }
        MomentumCorrection.Adam a = (MomentumCorrection.Adam) kind;
        float b1 = a.beta1();
        float b2 = a.beta2();
        // the same float operations as FlatOptimizer.Adam, less the learning rate
        float c1 = (float) (1 - StrictMath.pow(b1, steps));
        float sc2 = (float) Math.sqrt((float) (1 - StrictMath.pow(b2, steps)));
        for (int i = 0; i < m; i++) {
            float g = buf[i];
            first[i] = b1 * first[i] + (1 - b1) * g;
            second[i] = b2 * second[i] + (1 - b2) * g * g;
            buf[i] = first[i] / c1 / ((float) Math.sqrt(second[i]) / sc2 + a.epsilon());
        }
    }

    /**
     * The weights top-k chooses by, beside the size of the direction kept: for Adam, the size
     * of the first moment (the gradient's running mean), so that an element's priority is the
     * first-order loss decrease its delayed update promises, {@code |m · r|}; null for SGD,
     * whose velocity already is in the gradient's units (DGC chooses by it alone).
     */
    float[] selectionWeights() {
        if (!(kind instanceof MomentumCorrection.Adam)) {
            return null;
        }
        float[] w = new float[first.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = Math.abs(first[i]);
        }
        return w;
    }

    /** Momentum factor masking: clears the momentum of the elements sent. */
    void mask(int[] sent) {
        for (int i : sent) {
            if (i < first.length) {
                first[i] = 0f;
            }
        }
    }

    /** A copy of SGD's velocity or Adam's first moment. */
    float[] momentum() {
        return first.clone();
    }

    void reset() {
        Arrays.fill(first, 0f);
        Arrays.fill(second, 0f);
        steps = 0;
    }

    private void clip(float[] buf, int m) {
        if (clip <= 0) {
            return;
        }
        double sq = 0;
        for (int i = 0; i < m; i++) {
            sq += (double) buf[i] * buf[i];
        }
        double norm = Math.sqrt(sq);
        if (norm > clip) {
            float scale = (float) (clip / norm);
            for (int i = 0; i < m; i++) {
                buf[i] *= scale;
            }
        }
    }
}
