package dev.dml.ray.collective;

import java.util.Arrays;

/**
 * One worker's gradient compression: its {@link GradientCompression} scheme and, for a lossy
 * one, its error feedback (and, for {@link PowerSgd}, the gradients' layout and the factors it
 * warm-starts from). Whatever an encoding loses (rounding, elements top-k left out, and
 * the re-encoding of partial sums in the ring) is kept in a residual and added to the next
 * step's gradients, so that over the steps the sum of what is applied tracks the sum of the true
 * gradients (Seide et al.'s 1-bit SGD, Karimireddy et al.'s EF-SGD). With {@link TopK} and a
 * {@link MomentumCorrection}, the optimizer's momentum runs here, before the encoding, and the
 * residual keeps the velocity instead of the raw gradient (Deep Gradient Compression). Owned
 * by one worker; not thread-safe.
 */
public final class GradientCompressor {

    private final GradientCompression scheme;
    private final GradientLayout layout;
    private final int exactTail;
    private float[] residual = new float[0];
    /** {@link PowerSgd}'s {@code Q} per tensor, kept between steps; null before the first. */
    private float[][] lowRankFactors;
    /** Top-k's momentum correction; null without one. */
    private final Velocity velocity;
    /** The training's progress in epochs, for top-k's warm-up. */
    private double epochs;

    /**
     * Creates a compressor with an empty residual, for an element-wise scheme.
     *
     * @param scheme how to encode; not {@link PowerSgd}, which needs a layout
     * @param exactTail the last elements of every array, which travel as float32 untouched
     *     (elements that must arrive exactly)
     */
    public GradientCompressor(GradientCompression scheme, int exactTail) {
        this(scheme, null, exactTail);
    }

    /**
     * Creates a compressor with an empty residual.
     *
     * @param scheme how to encode
     * @param layout the shapes of the tensors in the arrays' first elements (all but the exact
     *     tail); may be null for an element-wise scheme
     * @param exactTail the last elements of every array, which travel as float32 untouched
     *     (elements that must arrive exactly)
     * @throws IllegalArgumentException for {@link PowerSgd} without a layout
     */
    public GradientCompressor(GradientCompression scheme, GradientLayout layout,
            int exactTail) {
        this(scheme, layout, exactTail, null, 1);
    }

    /**
     * Creates a compressor with an empty residual that, for {@link TopK}, runs the optimizer's
     * momentum before the encoding.
     *
     * @param scheme how to encode
     * @param layout the shapes of the tensors in the arrays' first elements (all but the exact
     *     tail); may be null for an element-wise scheme
     * @param exactTail the last elements of every array, which travel as float32 untouched
     * @param correction the momentum and clipping to run before a top-k encoding, whose
     *     directions the optimizer then applies as plain SGD; null for none
     * @param workers the workers that all-reduce, which scale the local clip norm
     * @throws IllegalArgumentException for {@link PowerSgd} without a layout, or a correction
     *     for a scheme other than {@link TopK}
     */
    public GradientCompressor(GradientCompression scheme, GradientLayout layout,
            int exactTail, MomentumCorrection correction, int workers) {
        if (correction != null && !(scheme instanceof TopK)) {
            throw new IllegalArgumentException("momentum correction is top-k's, not " + scheme);
        }
        this.velocity = correction == null ? null : new Velocity(correction, workers);
        if (exactTail < 0) {
            throw new IllegalArgumentException("exactTail " + exactTail);
        }
        if (scheme instanceof PowerSgd && layout == null) {
            throw new IllegalArgumentException(scheme + " needs the gradients' layout");
        }
        this.scheme = scheme;
        this.layout = layout;
        this.exactTail = exactTail;
    }

    /**
     * Returns the scheme.
     *
     * @return how this compressor encodes
     */
    public GradientCompression scheme() {
        return scheme;
    }

    /**
     * Returns a copy of the residual: what earlier steps lost and the next step adds.
     *
     * @return one float per compressed element (empty before the first step)
     */
    public float[] residual() {
        return residual.clone();
    }

    /**
     * Forgets the residual, as after a worker restored a snapshot, and PowerSGD's kept {@code
     * Q}s, which are drawn from their seed again.
     */
    public void reset() {
        Arrays.fill(residual, 0f);
        lowRankFactors = null;
        if (velocity != null) {
            velocity.reset();
        }
    }

    /**
     * Says how far the training is, for top-k's warm-up ({@link TopK#ratioAt}).
     *
     * @param epochsDone the epochs done before the coming step, fractional
     */
    public void setProgress(double epochsDone) {
        epochs = epochsDone;
    }

    /**
     * Returns a copy of the momentum that runs before the encoding: SGD's velocity or Adam's
     * first moment, zero where momentum factor masking cleared it.
     *
     * @return one float per compressed element; empty without a momentum correction or before
     *     the first step
     */
    public float[] momentum() {
        return velocity == null ? new float[0] : velocity.momentum();
    }

    /**
     * Says whether this compressor runs the optimizer's momentum before the encoding, so that
     * the model steps with plain SGD on what the all-reduce returns.
     *
     * @return {@code true} with a {@link MomentumCorrection}
     */
    public boolean correctsMomentum() {
        return velocity != null;
    }

    /** The pairs top-k sends out of {@code m} elements at the current progress. */
    int topKCount(int m) {
        return TopK.count(m, ((TopK) scheme).ratioAt(epochs));
    }

    /** Turns a local gradient into the direction top-k encodes, when there is a correction. */
    void correct(float[] buf, int m) {
        if (velocity != null) {
            velocity.advance(buf, m);
        }
    }

    /** What top-k weighs the elements' sizes by, when it chooses them; null for none. */
    float[] selectionWeights() {
        return velocity == null ? null : velocity.selectionWeights();
    }

    /** Momentum factor masking of the elements sent, when there is a correction. */
    void sent(int[] index) {
        if (velocity != null) {
            velocity.mask(index);
        }
    }

    int exactTail() {
        return exactTail;
    }

    GradientLayout layout() {
        return layout;
    }

    float[][] lowRankFactors() {
        return lowRankFactors;
    }

    void setLowRankFactors(float[][] q) {
        lowRankFactors = q;
    }

    /**
     * Adds the residual into {@code buf[0, m)} and returns it zeroed, to collect what this
     * step's encodings lose; {@code m} is the compressed length.
     */
    float[] feedBack(float[] buf, int m) {
        if (residual.length != m) {
            residual = new float[m]; // a new model or a first step: nothing to carry
        }
        for (int i = 0; i < m; i++) {
            buf[i] += residual[i];
        }
        Arrays.fill(residual, 0f);
        return residual;
    }
}
