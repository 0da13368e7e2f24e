package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.dml.DmlException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The parameters of a block seen as one flat float vector, in {@code block.getParameters()}
 * order.
 *
 * <p>On the CPU, reads and writes go through {@code NDArray.toByteBuffer(true)}, a direct buffer
 * over the tensor's own memory, so a write changes the tensor in place. ({@code
 * NDArray.set(Buffer)} and {@code copyTo} on a gradient crash the JVM with PyTorch 2.7, so they
 * are not used.) A GPU tensor has no host memory: its values are <em>staged</em>, copied to the
 * host to be read, and written by copying a host array to the device and assigning it in place
 * ({@code a[...] = h}). The caller's flat buffer is the reused host buffer either way.
 */
final class ParameterBuffers {

    /** Every element: {@code a.set(ALL, b)} assigns in place ({@code a[...] = b}). */
    private static final NDIndex ALL = new NDIndex("...");

    private final List<Parameter> params = new ArrayList<>();
    private final int[] offsets;
    private final int total;
    private final boolean staged;

    /** Host views of CPU tensors. */
    ParameterBuffers(Block block) {
        this(block, false);
    }

    /**
     * @param block the parameters' block
     * @param staged copy values through the host (a GPU's tensors; tests force it on the CPU)
     */
    ParameterBuffers(Block block, boolean staged) {
        this.staged = staged;
        block.getParameters().values().forEach(params::add);
        offsets = new int[params.size() + 1];
        long sum = 0;
        for (int i = 0; i < params.size(); i++) {
            offsets[i] = (int) sum;
            sum += params.get(i).getArray().size();
        }
        if (sum > Integer.MAX_VALUE - 8) {
            throw new DmlException(
                    "The model has " + sum + " parameters, more than one flat buffer holds.",
                    "Use a smaller model (under 2^31 parameters).");
        }
        offsets[params.size()] = (int) sum;
        total = (int) sum;
    }

    int total() {
        return total;
    }

    List<Parameter> parameters() {
        return params;
    }

    int offset(int i) {
        return offsets[i];
    }

    /** A float view of a contiguous CPU tensor's own memory. */
    static FloatBuffer view(NDArray a) {
        return bytes(a).asFloatBuffer();
    }

    /** The array's memory as bytes in native order (direct on the CPU). */
    private static ByteBuffer bytes(NDArray a) {
        return a.toByteBuffer(true).order(ByteOrder.nativeOrder());
    }

    /** Fills weights with He-uniform values from {@code seed}'s stream and biases with zeros. */
    void initialize(long seed) {
        initialize(seed, 0);
    }

    /**
     * Like {@link #initialize(long)} after skipping {@code skip} values of the stream: the
     * parameters of a pipeline stage get the values they have in the whole model.
     */
    void initialize(long seed, long skip) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (long i = 0; i < skip; i++) {
            rnd.nextDouble();
        }
        for (Parameter p : params) {
            NDArray a = p.getArray();
            FloatBuffer v = staged ? FloatBuffer.allocate((int) a.size()) : view(a);
            long[] shape = a.getShape().getShape();
            boolean bias = isBias(p);
            long fanIn = 1;
            for (int d = 1; d < shape.length; d++) {
                fanIn *= shape[d];
            }
            float bound = (float) Math.sqrt(6.0 / Math.max(1, fanIn));
            int n = v.limit();
            for (int i = 0; i < n; i++) {
                v.put(i, bias ? 0f : (float) ((rnd.nextDouble() * 2 - 1) * bound));
            }
            if (staged) {
                GradMode.off(() -> write(a, v));
            }
        }
    }

    /** Whether values are copied through the host. @return true for a GPU's tensors */
    boolean staged() {
        return staged;
    }

    /** Applies one host optimizer update to every parameter, in place, from its gradient. */
    void update(FlatOptimizer.OnHost optimizer) {
        if (staged) {
            throw new IllegalStateException("a staged model updates with a DeviceOptimizer");
        }
        optimizer.beginStep(this);
        for (int i = 0; i < params.size(); i++) {
            NDArray a = params.get(i).getArray();
            try (NDArray g = a.getGradient()) {
                optimizer.update(offsets[i], bytes(a), bytes(g), decays(i));
            }
        }
    }

    /** Whether weight decay applies to parameter {@code i}: a weight, not a bias. */
    boolean decays(int i) {
        return !isBias(params.get(i));
    }

    /**
     * Scales every gradient by {@code maxNorm / norm} when their global L2 norm is above
     * {@code maxNorm}, as PyTorch's {@code clip_grad_norm_}; the sum of squares is taken in
     * double in parameter order, so equal gradients clip to bitwise equal ones.
     *
     * @return the norm before clipping
     */
    double clipGradients(float maxNorm) {
        double squares = 0;
        for (Parameter p : params) {
            try (NDArray g = p.getArray().getGradient()) {
                squares += GradientNorm.squares(g, staged);
            }
        }
        double norm = Math.sqrt(squares);
        if (norm > maxNorm) {
            float scale = (float) (maxNorm / norm);
            for (Parameter p : params) {
                try (NDArray g = p.getArray().getGradient()) {
                    GradientNorm.scale(g, scale, staged);
                }
            }
        }
        return norm;
    }

    /** Sets every gradient to zero. */
    void zeroGradients() {
        for (Parameter p : params) {
            JniUtils.zeroGrad((PtNDArray) p.getArray());
        }
    }

    /** How many values {@link #initialize} draws from the stream: one per weight. */
    long randomDraws() {
        long n = 0;
        for (Parameter p : params) {
            n += isBias(p) ? 0 : p.getArray().size();
        }
        return n;
    }

    private static boolean isBias(Parameter p) {
        return p.getType() == Parameter.Type.BIAS || p.getArray().getShape().dimension() == 1;
    }

    void copyParameters(FloatBuffer dst) {
        requireRoom(dst, "parameters");
        for (Parameter p : params) {
            read(p.getArray(), dst);
        }
    }

    void setParameters(FloatBuffer src) {
        requireRemaining(src, "parameters");
        for (Parameter p : params) {
            put(p.getArray(), src);
        }
    }

    /**
     * Views of the values, or the gradients, of parameters {@code [from, to)} (CPU tensors):
     * a gradient's memory outlives the handle closed here, as its parameter holds it.
     */
    FlatViews views(int from, int to, boolean gradients) {
        FloatBuffer[] v = new FloatBuffer[to - from];
        for (int i = from; i < to; i++) {
            NDArray a = params.get(i).getArray();
            if (!gradients) {
                v[i - from] = view(a);
                continue;
            }
            try (NDArray g = a.getGradient()) {
                v[i - from] = view(g);
            }
        }
        return new FlatViews(v, java.util.Arrays.copyOfRange(offsets, from, to + 1));
    }

    void copyGradients(FloatBuffer dst) {
        requireRoom(dst, "gradients");
        copyGradients(0, params.size(), dst);
    }

    /** Appends the gradients of parameters {@code [from, to)} to {@code dst}. */
    void copyGradients(int from, int to, FloatBuffer dst) {
        for (Parameter p : params.subList(from, to)) {
            try (NDArray g = p.getArray().getGradient()) {
                read(g, dst);
            }
        }
    }

    /** The index of the parameter that starts at flat offset {@code offset}. */
    int parameterAt(int offset) {
        int i = java.util.Arrays.binarySearch(offsets, 0, params.size() + 1, offset);
        if (i < 0) {
            throw new IllegalArgumentException("no parameter starts at " + offset);
        }
        while (i > 0 && offsets[i - 1] == offset) {
            i--; // an empty parameter before it starts there too
        }
        return i;
    }

    void setGradients(FloatBuffer src) {
        requireRemaining(src, "gradients");
        for (Parameter p : params) {
            try (NDArray g = p.getArray().getGradient()) {
                put(g, src);
            }
        }
    }

    /** Appends a tensor's values to {@code dst}. */
    private void read(NDArray a, FloatBuffer dst) {
        if (!staged) {
            dst.put(view(a));
            return;
        }
        try (NDArray h = a.toDevice(Device.cpu(), true)) {
            dst.put(view(h));
        }
    }

    /** Overwrites a tensor with the next {@code a.size()} values of {@code src}. */
    private void put(NDArray a, FloatBuffer src) {
        FloatBuffer part = src.slice();
        part.limit((int) a.size());
        if (staged) {
            GradMode.off(() -> write(a, part));
        } else {
            view(a).put(part);
        }
        src.position(src.position() + (int) a.size());
    }

    /**
     * Overwrites a tensor, on any device, in place with {@code src}'s remaining values, copied
     * to the device through a temporary array. Call it without gradient recording.
     */
    static void write(NDArray a, FloatBuffer src) {
        try (NDArray h = a.getManager().create(src, a.getShape())) {
            if (h.getDevice().equals(a.getDevice())) {
                a.set(ALL, h);
            } else {
                try (NDArray d = h.toDevice(a.getDevice(), false)) {
                    a.set(ALL, d);
                }
            }
        }
    }

    private void requireRoom(FloatBuffer dst, String what) {
        if (dst.remaining() < total) {
            throw new DmlException(
                    "The buffer for " + what + " has room for " + dst.remaining() + " floats; the"
                            + " model has " + total + ".",
                    "Allocate parameterCount() floats.");
        }
    }

    private void requireRemaining(FloatBuffer src, String what) {
        if (src.remaining() != total) {
            throw new DmlException(
                    "The " + what + " buffer holds " + src.remaining() + " floats; the model has "
                            + total + ".",
                    "Pass exactly parameterCount() floats, made by a replica of the same"
                            + " ModelSpec.");
        }
    }
}
