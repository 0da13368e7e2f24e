package dev.dml.ray.collective;

import java.util.Arrays;

/**
 * One worker's gradient compression: its {@link GradientCompression} scheme and, for a lossy
 * one, its error feedback (and, for {@link PowerSgd}, the gradients' layout and the factors it
 * warm-starts from). Whatever an encoding loses (rounding, elements top-k left out, and
 * the re-encoding of partial sums in the ring) is kept in a residual and added to the next
 * step's gradients, so that over the steps the sum of what is applied tracks the sum of the true
 * gradients (Seide et al.'s 1-bit SGD, Karimireddy et al.'s EF-SGD). Owned by one worker;
 * not thread-safe.
 */
public final class GradientCompressor {

    private final GradientCompression scheme;
    private final GradientLayout layout;
    private final int exactTail;
    private float[] residual = new float[0];
    /** {@link PowerSgd}'s {@code Q} per tensor, kept between steps; null before the first. */
    private float[][] lowRankFactors;

    /**
     * Creates a compressor with an empty residual, for an element-wise scheme.
     *
     * @param scheme how to encode; not {@link PowerSgd}, which needs a layout
     * @param exactTail the last elements of every array, which travel as float32 untouched
     *     (flags that must arrive exactly, such as a worker's notice that it is leaving)
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
     *     (flags that must arrive exactly, such as a worker's notice that it is leaving)
     * @throws IllegalArgumentException for {@link PowerSgd} without a layout
     */
    public GradientCompressor(GradientCompression scheme, GradientLayout layout,
            int exactTail) {
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
