package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The dynamic loss scale of {@code --precision fp16}, as PyTorch's {@code GradScaler} keeps it:
 * the backward starts from the loss times the scale, so gradients too small for half floats
 * survive; before the optimizer step the gradients are divided by it again. A step whose
 * gradients hold an infinity or a NaN (the scale was too large) is skipped and the scale halves;
 * after {@link #GROWTH_INTERVAL} good steps in a row it doubles. Data-parallel replicas all see
 * the same averaged gradients, so they skip the same steps and keep the same scale.
 */
final class LossScale {

    static final float INITIAL = 65536f;
    static final int GROWTH_INTERVAL = 2000;

    private final int growthInterval;
    private float scale;
    private int goodSteps;
    private long skipped;

    LossScale() {
        this(INITIAL, GROWTH_INTERVAL);
    }

    LossScale(float initial, int growthInterval) {
        this.scale = initial;
        this.growthInterval = growthInterval;
    }

    /** The factor the loss is multiplied by before the backward. */
    float scale() {
        return scale;
    }

    /** The optimizer steps skipped for gradients that overflowed, since the job started. */
    long skipped() {
        return skipped;
    }

    /**
     * Divides every gradient by the scale, in place, and updates the scale.
     *
     * @param params the parameters whose gradients the backward left
     * @return whether the gradients are finite: false means skip this step
     */
    boolean unscale(ParameterBuffers params) {
        float inverse = 1f / scale;
        boolean[] finite = {true};
        GradMode.off(() -> {
            for (Parameter p : params.parameters()) {
                NDArray a = p.getArray();
                try (NDManager scope = a.getManager().newSubManager();
                        NDArray g = a.getGradient()) {
                    g.tempAttach(scope);
                    g.muli(inverse);
                    // the largest magnitude is infinite or NaN when any value is
                    if (finite[0] && !Float.isFinite(g.abs().max().getFloat())) {
                        finite[0] = false;
                    }
                }
            }
        });
        if (!finite[0]) {
            scale = Math.max(scale / 2, Float.MIN_NORMAL);
            goodSteps = 0;
            skipped++;
            return false;
        }
        if (++goodSteps >= growthInterval) {
            scale = Math.min(scale * 2, Float.MAX_VALUE / 2);
            goodSteps = 0;
        }
        return true;
    }

    void write(DataOutputStream out) throws IOException {
        out.writeFloat(scale);
        out.writeInt(goodSteps);
        out.writeLong(skipped);
    }

    void read(DataInputStream in) throws IOException {
        scale = in.readFloat();
        goodSteps = in.readInt();
        skipped = in.readLong();
    }
}
