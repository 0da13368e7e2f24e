package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.ParameterStore;
import dev.dml.DmlException;
import java.nio.FloatBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One stage of a model split by layer for model or pipeline parallelism: layers {@code
 * [from, to)} of a {@link ModelSpec}, with their own optimizer, and only those layers'
 * parameters in memory.
 *
 * <p>A <em>layer</em> is one block with parameters (a linear or convolution layer) together with
 * the parameter-free blocks after it (ReLU, pooling, flatten); blocks before the first such layer
 * (standardisation, the image reshape) belong to the first. {@link ModelSpec#layerCount()} counts
 * them. A stage's parameters are initialised to exactly the values they have in the whole model
 * of the same seed, and its flat parameters are the slice {@code [parameterOffset(),
 * parameterOffset() + parameterCount())} of the whole model's.
 *
 * <p>A step on micro-batches {@code 0..M-1}: {@link #beginStep()}; for each micro-batch, {@link
 * #forward} (the last stage: {@link #forwardBackward}, which also runs the loss and its backward),
 * then {@link #backward} with the gradient the next stage returned; then {@link #step()}. The
 * backward of a stage takes the upstream gradient {@code g} through the scalar {@code
 * sum(output * g)}, whose gradient with respect to the stage's parameters and input is exactly
 * the chain rule's; the input carries a gradient so that it can be handed to the stage before.
 * Gradients accumulate over the micro-batches of a step. Activations cross as compact bytes.
 *
 * <p>Owns its {@link NDManager}; one thread at a time (grad mode is set on each call's thread).
 */
public final class StageReplica implements AutoCloseable {

    private final ModelSpec spec;
    private final boolean first;
    private final boolean last;
    private final NDManager manager;
    private final List<Block> blocks;
    private final int[] layerStarts;
    private final ParameterStore store;
    private final ParameterBuffers params;
    private final FlatOptimizer optimizer;
    private final int parameterOffset;
    private final Map<Integer, NDArray[]> pending = new HashMap<>();
    private NDManager stepScope;

    private StageReplica(ModelSpec spec, OptimizerSpec opt, int from, int to, String name) {
        this.spec = spec;
        List<Block> all = StageLayers.children(spec);
        int[] starts = StageLayers.starts(all);
        int layers = starts.length;
        if (from < 0 || to > layers || from >= to) {
            throw new DmlException("Layers [" + from + ", " + to + ") are not a stage of a model"
                    + " with " + layers + " layers.", "Give each stage at least one layer, in"
                    + " order, " + layers + " layers in all.");
        }
        int c0 = starts[from];
        int c1 = to == layers ? all.size() : starts[to];
        this.first = from == 0;
        this.last = to == layers;
        this.manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        manager.setName(name);
        try {
            Shape shape = spec.inputShape();
            long skip = 0;
            int offset = 0;
            try (NDManager temp = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
                // earlier layers only to learn the shapes and how far the init stream has gone
                SequentialBlock before = new SequentialBlock();
                shape = StageLayers.initialize(all.subList(0, c0), before, temp, shape);
                ParameterBuffers earlier = new ParameterBuffers(before);
                skip = earlier.randomDraws();
                offset = earlier.total();
            }
            this.parameterOffset = offset;
            this.blocks = List.copyOf(all.subList(c0, c1));
            this.layerStarts = StageLayers.starts(blocks);
            SequentialBlock mine = new SequentialBlock();
            StageLayers.initialize(blocks, mine, manager, shape);
            this.store = new ParameterStore(manager, false);
            this.params = new ParameterBuffers(mine);
            params.initialize(spec.seed(), skip);
            this.optimizer = opt.newOptimizer(params.total());
            StageLayers.prime(blocks, store, manager, shape);
            params.zeroGradients();
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /**
     * Builds layers {@code [fromLayer, toLayer)} of a model, initialised as in the whole model.
     *
     * @param spec the whole model
     * @param optimizer the optimizer of this stage's parameters
     * @param fromLayer the first layer, 0-based
     * @param toLayer one past the last layer, at most {@link ModelSpec#layerCount()}
     * @param name the NDManager's name, {@code job/stage} by convention
     * @return the stage, owned by the caller
     */
    public static StageReplica open(ModelSpec spec, OptimizerSpec optimizer, int fromLayer,
            int toLayer, String name) {
        return new StageReplica(spec, optimizer, fromLayer, toLayer, name);
    }

    /**
     * Tells whether this stage holds the model's first layer (it reads the features).
     *
     * @return {@code true} for the first stage
     */
    public boolean isFirst() {
        return first;
    }

    /**
     * Tells whether this stage holds the model's last layer (it computes the loss).
     *
     * @return {@code true} for the last stage
     */
    public boolean isLast() {
        return last;
    }

    /**
     * Returns the number of this stage's scalar parameters.
     *
     * @return the parameter count
     */
    public int parameterCount() {
        return params.total();
    }

    /**
     * Returns where this stage's parameters start in the whole model's flat vector.
     *
     * @return the offset
     */
    public int parameterOffset() {
        return parameterOffset;
    }

    /** Starts a step: zeroes the gradients and frees the previous step's activations. */
    public void beginStep() {
        closeScope();
        params.zeroGradients();
        stepScope = manager.newSubManager();
    }

    /**
     * Runs a first stage on a micro-batch of features and keeps its graph for {@link #backward}.
     *
     * @param microbatch the micro-batch's index in this step
     * @param features {@code [b, inputs]}, borrowed (copied)
     * @return the activation, as bytes for the next stage
     */
    public byte[] forward(int microbatch, NDArray features) {
        NDArray x = features.duplicate();
        x.attach(scope());
        return TensorBytes.encode(keep(microbatch, x, run(x)));
    }

    /**
     * Runs a middle stage on the previous stage's activation and keeps its graph.
     *
     * @param microbatch the micro-batch's index in this step
     * @param activation the previous stage's output bytes
     * @return this stage's activation, as bytes
     */
    public byte[] forward(int microbatch, byte[] activation) {
        NDArray x = input(activation);
        return TensorBytes.encode(keep(microbatch, x, run(x)));
    }

    /**
     * Runs the last stage: forward, the loss, and its backward with weight {@code weight} (so
     * that the step's gradient is the batch mean's: {@code 1/M} for {@code M} equal
     * micro-batches). Fetch the input's gradient with {@link #inputGradient}.
     *
     * @param microbatch the micro-batch's index in this step
     * @param activation the previous stage's output bytes, or {@code null} on a one-stage model
     * @param features the features, used only on a one-stage model (borrowed)
     * @param labels the micro-batch's labels, borrowed
     * @param weight the loss's weight in the step's loss
     * @return the micro-batch's mean loss (unweighted)
     */
    public float forwardBackward(int microbatch, byte[] activation, NDArray features,
            NDArray labels, float weight) {
        NDArray x;
        if (first) {
            x = features.duplicate();
            x.attach(scope());
        } else {
            x = input(activation);
        }
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try {
            NDArray out = run(x);
            NDArray loss = spec.objective().loss(out, labels);
            float value = loss.getFloat();
            if (!Float.isFinite(value)) {
                throw new DmlException("The loss became " + value + " after "
                        + optimizer.steps + " steps.",
                        "Lower the learning rate, or scale the features (large raw values).");
            }
            NDArray head = scope().full(loss.getShape(), weight);
            JniUtils.backward((PtNDArray) loss, (PtNDArray) head, false, false);
            pending.put(microbatch, new NDArray[] {x, null});
            return value;
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    /**
     * Runs the backward of a micro-batch this stage ran forward: adds the gradient of {@code
     * sum(output * g)} to the parameters' gradients.
     *
     * @param microbatch the micro-batch
     * @param outputGradient {@code g}, the next stage's input gradient bytes
     * @return this stage's input gradient, as bytes for the stage before; {@code null} on the
     *     first stage
     */
    public byte[] backward(int microbatch, byte[] outputGradient) {
        NDArray[] io = taken(microbatch);
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try {
            NDArray g = TensorBytes.decode(outputGradient, scope());
            NDArray dot = io[1].mul(g).sum();
            NDArray head = scope().ones(dot.getShape());
            JniUtils.backward((PtNDArray) dot, (PtNDArray) head, false, false);
        } finally {
            JniUtils.setGradMode(was);
        }
        pending.put(microbatch, new NDArray[] {io[0], null});
        return inputGradient(microbatch);
    }

    /**
     * Returns, once, the gradient of a micro-batch's input after its backward.
     *
     * @param microbatch the micro-batch
     * @return the gradient bytes, or {@code null} on the first stage (its input is data)
     */
    public byte[] inputGradient(int microbatch) {
        NDArray[] io = taken(microbatch);
        if (first) {
            return null;
        }
        try (NDArray grad = io[0].getGradient()) {
            return TensorBytes.encode(grad);
        }
    }

    /** Applies one optimizer update from the accumulated gradients and frees the activations. */
    public void step() {
        params.update(optimizer);
        closeScope();
    }

    /**
     * Returns this stage's gradients, flat (to average them across replicas).
     *
     * @return {@link #parameterCount()} floats
     */
    public float[] gradients() {
        float[] g = new float[params.total()];
        params.copyGradients(FloatBuffer.wrap(g));
        return g;
    }

    /**
     * Overwrites this stage's gradients, in place.
     *
     * @param src {@link #parameterCount()} floats
     */
    public void setGradients(float[] src) {
        params.setGradients(FloatBuffer.wrap(src));
    }

    /**
     * Returns this stage's parameters, flat.
     *
     * @return {@link #parameterCount()} floats
     */
    public float[] parameters() {
        float[] p = new float[params.total()];
        params.copyParameters(FloatBuffer.wrap(p));
        return p;
    }

    /**
     * Overwrites this stage's parameters, in place.
     *
     * @param src {@link #parameterCount()} floats
     */
    public void setParameters(float[] src) {
        params.setParameters(FloatBuffer.wrap(src));
    }

    /**
     * Returns the scalar parameters of each of this stage's layers, a cost to balance on.
     *
     * @return one count per layer
     */
    public long[] layerParameters() {
        return StageLayers.parameters(blocks, layerStarts);
    }

    /**
     * Times each layer's forward and backward on a batch, the median of {@code repeats} runs.
     *
     * @param x the stage's input {@code [b, ...]}, borrowed
     * @param repeats runs per layer, at least 1
     * @return milliseconds per layer
     */
    public double[] layerMillis(NDArray x, int repeats) {
        try (NDManager scope = manager.newSubManager()) {
            return StageLayers.time(blocks, layerStarts, store, scope, x, repeats);
        }
    }

    private NDArray run(NDArray x) {
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try {
            return StageLayers.forward(blocks, store, x);
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    private NDArray input(byte[] activation) {
        NDArray x = TensorBytes.decode(activation, scope());
        x.setRequiresGradient(true);
        return x;
    }

    private NDArray keep(int microbatch, NDArray in, NDArray out) {
        pending.put(microbatch, new NDArray[] {in, out});
        return out;
    }

    private NDArray[] taken(int microbatch) {
        NDArray[] io = pending.remove(microbatch);
        if (io == null) {
            throw new DmlException("Micro-batch " + microbatch + " has no pending forward on"
                    + " this stage.", "Run forward before backward, once per micro-batch and"
                    + " step; this is a bug in the schedule.");
        }
        return io;
    }

    private NDManager scope() {
        if (stepScope == null) {
            throw new DmlException("The stage has no step open.", "Call beginStep() first.");
        }
        return stepScope;
    }

    private void closeScope() {
        pending.clear();
        if (stepScope != null) {
            stepScope.close();
            stepScope = null;
        }
    }

    @Override
    public void close() {
        closeScope();
        manager.close();
    }
}
