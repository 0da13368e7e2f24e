package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.convolutional.Convolution;
import ai.djl.nn.core.Linear;
import ai.djl.training.ParameterStore;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Runs a stage's linear and convolution layers in a 16-bit type, as PyTorch's autocast does:
 * each forward casts those layers' float32 parameters and their input to the type, so the
 * products run in it, and autograd casts their gradients back, so the parameters, their
 * gradients and the optimizer stay float32 (the master weights). Every other block (the
 * standardisation, embeddings) runs in float32, and so does the loss: the stage's output is
 * cast back.
 *
 * <p>It is the stage's {@link ParameterStore}, since a DJL block reads its parameters through
 * the store. A cast belongs to the forward's input manager, so it is freed with the step's
 * arrays; the autograd graph keeps what its backward needs.
 */
final class MixedPrecision extends ParameterStore {

    private final DataType low;
    private final Set<Parameter> lowered = Collections.newSetFromMap(new IdentityHashMap<>());
    private NDManager scope;

    /**
     * @param manager the stage's manager
     * @param precision a 16-bit precision
     * @param blocks the stage's blocks, initialised
     */
    MixedPrecision(NDManager manager, Precision precision, List<Block> blocks) {
        super(manager, false);
        this.low = precision.compute();
        for (Block b : blocks) {
            if (lowers(b)) {
                lowered.addAll(b.getParameters().values());
            }
        }
    }

    /** Whether a block runs in the 16-bit type: a product of its input with its weights. */
    static boolean lowers(Block b) {
        return b instanceof Linear || b instanceof Convolution;
    }

    /** Runs blocks in order on {@code x} in training mode; returns a float32 output. */
    NDArray forward(List<Block> blocks, NDArray x) {
        NDManager outer = scope;
        scope = x.getManager();
        try {
            NDArray h = x;
            for (Block b : blocks) {
                if (lowers(b)) {
                    h = cast(h, low);
                } else if (!b.getParameters().isEmpty()) {
                    h = cast(h, DataType.FLOAT32);
                }
                h = b.forward(this, new NDList(h), true).singletonOrThrow();
            }
            return cast(h, DataType.FLOAT32);
        } finally {
            scope = outer;
        }
    }

    @Override
    public NDArray getValue(Parameter parameter, Device device, boolean training) {
        NDArray value = super.getValue(parameter, device, training);
        return lowered.contains(parameter) ? cast(value, low) : value;
    }

    /**
     * The array in {@code type}: itself, or a cast owned by the scope. DJL's {@code toType}
     * casts without recording autograd, so the cast is an in-place add to zeros of the type,
     * which autograd records (and whose backward casts the gradient back).
     */
    private NDArray cast(NDArray a, DataType type) {
        if (a.getDataType() == type) {
            return a;
        }
        NDManager owner = scope != null ? scope : a.getManager();
        return owner.zeros(a.getShape(), type, a.getDevice()).addi(a);
    }
}
