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
import java.util.List;

/**
 * Layers {@code [from, to)} of a {@link ModelSpec} with their optimizer: the unit every worker
 * trains. A data-parallel worker holds the whole model ({@link #openWhole}); a model- or
 * pipeline-parallel one holds a stage ({@link #open}).
 *
 * <p>A <em>layer</em> is one block with parameters (a linear or convolution layer) together with
 * the parameter-free blocks after it (ReLU, pooling, flatten); blocks before the first such layer
 * (standardisation, the image reshape) belong to the first. {@link ModelSpec#layerCount()} counts
 * them. A stage's parameters are initialised to exactly the values they have in the whole model
 * of the same seed, and its flat parameters are the slice {@code [parameterOffset(),
 * parameterOffset() + parameterCount())} of the whole model's.
 *
 * <p>The whole model trains a batch with {@link #trainBatch}. A stage trains micro-batches
 * through {@link MicroBatchGraph} ({@link #microBatches()}): forward, the last stage's loss and
 * backward, and each earlier stage's backward from the gradient of its output. Either way the
 * gradients can then be averaged with other replicas ({@link #copyGradients}, {@link
 * #setGradients}) before {@link #step()}.
 *
 * <p>The backward pass calls PyTorch's autograd directly ({@code JniUtils.backward}), not DJL's
 * {@code GradientCollector}, of which only one may be open per JVM. Owns its {@link NDManager};
 * one thread at a time (grad mode is set on each call's thread). Input arrays are borrowed.
 */
public final class ModelStage implements AutoCloseable {

    private final ModelSpec spec;
    private final OptimizerSpec optimizerSpec;
    private final int fromLayer;
    private final int toLayer;
    private final boolean first;
    private final boolean last;
    private final NDManager manager;
    private final List<Block> blocks;
    private final SequentialBlock block;
    private final int[] layerStarts;
    private final ParameterStore store;
    private final ParameterBuffers params;
    private FlatOptimizer optimizer;
    private final int parameterOffset;
    private final MicroBatchGraph graph;
    private final Device device;
    /** The fp16 loss scale; null in other precisions. */
    private final LossScale lossScale;

    private ModelStage(ModelSpec spec, OptimizerSpec opt, int from, int to, String name,
            Device device, Precision precision, boolean staged) {
        this.spec = spec;
        this.optimizerSpec = opt;
        List<Block> all = StageLayers.children(spec);
        int[] starts = StageLayers.starts(all);
        int layers = starts.length;
        if (from < 0 || to > layers || from >= to) {
            throw new DmlException("Layers [" + from + ", " + to + ") are not a stage of a model"
                    + " with " + layers + " layers.", "Give each stage at least one layer, in"
                    + " order, " + layers + " layers in all.");
        }
        precision.requireEngineSupport();
        this.fromLayer = from;
        this.toLayer = to;
        int c0 = starts[from];
        int c1 = to == layers ? all.size() : starts[to];
        this.first = from == 0;
        this.last = to == layers;
        this.device = device;
        this.manager = NDManager.newBaseManager(device, "PyTorch");
        manager.setName(name);
        try {
            StageLayers.Earlier earlier = StageLayers.earlier(all.subList(0, c0),
                    spec.inputShape());
            Shape shape = earlier.output();
            this.parameterOffset = earlier.parameters();
            this.blocks = List.copyOf(all.subList(c0, c1));
            this.layerStarts = StageLayers.starts(blocks);
            this.block = new SequentialBlock();
            StageLayers.initialize(blocks, block, manager, shape);
            this.store = precision == Precision.FP32 ? new ParameterStore(manager, false)
                    : new MixedPrecision(manager, precision, blocks);
            this.lossScale = precision.scalesLoss() ? new LossScale() : null;
            this.params = new ParameterBuffers(block, staged || !device.equals(Device.cpu()));
            params.initialize(spec.seed(), earlier.randomDraws());
            this.optimizer = opt.newOptimizer(params, manager);
            StageLayers.prime(blocks, store, manager, shape);
            params.zeroGradients();
            this.graph = new MicroBatchGraph(this);
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
     * @param name the NDManager's name, {@code job/stage/rank} by convention
     * @return the stage, owned by the caller
     */
    public static ModelStage open(ModelSpec spec, OptimizerSpec optimizer, int fromLayer,
            int toLayer, String name) {
        return open(spec, optimizer, fromLayer, toLayer, name, Device.cpu(), Precision.FP32);
    }

    /**
     * Like {@link #open(ModelSpec, OptimizerSpec, int, int, String)} on a device: on a GPU the
     * parameters, gradients and optimizer state live there, inputs are copied there, and flat
     * reads and writes are staged through host memory; and in a precision.
     *
     * @param device {@code Device.cpu()} or a GPU
     * @param precision the type of the layers' products ({@code --precision})
     * @return the stage, owned by the caller
     */
    public static ModelStage open(ModelSpec spec, OptimizerSpec optimizer, int fromLayer,
            int toLayer, String name, Device device, Precision precision) {
        return new ModelStage(spec, optimizer, fromLayer, toLayer, name, device, precision,
                false);
    }

    /** The whole model on the CPU through the GPU path's staging and device optimizer. */
    static ModelStage openStaged(ModelSpec spec, OptimizerSpec optimizer, String name,
            Precision precision) {
        return new ModelStage(spec, optimizer, 0, spec.layerCount(), name, Device.cpu(),
                precision, true);
    }

    /**
     * Builds the whole model, initialised from the spec's seed (bitwise the same for a seed).
     *
     * @param spec the model
     * @param optimizer its optimizer
     * @param name its NDManager's name, {@code job/rank} by convention
     * @return the model, owned by the caller
     */
    public static ModelStage openWhole(ModelSpec spec, OptimizerSpec optimizer, String name) {
        return open(spec, optimizer, 0, spec.layerCount(), name);
    }

    /** Returns the whole model's spec. @return the spec */
    public ModelSpec spec() {
        return spec;
    }

    /** Returns the optimizer's spec. @return the spec */
    public OptimizerSpec optimizerSpec() {
        return optimizerSpec;
    }

    /** Returns the DJL block of this stage's layers, borrowed. @return the block */
    public Block block() {
        return block;
    }

    /** Tells whether this stage reads the features. @return {@code true} for the first stage */
    public boolean isFirst() {
        return first;
    }

    /** Tells whether this stage computes the loss. @return {@code true} for the last stage */
    public boolean isLast() {
        return last;
    }

    /** Returns the number of scalar parameters. @return the length of every flat buffer */
    public int parameterCount() {
        return params.total();
    }

    /** Returns each parameter's shape in flat-buffer order. @return e.g. [out, in] first */
    public List<long[]> parameterShapes() {
        return params.parameters().stream().map(p -> p.getArray().getShape().getShape())
                .toList();
    }

    /** Returns where these parameters start in the whole model's. @return the offset */
    public int parameterOffset() {
        return parameterOffset;
    }

    /** Returns the optimizer steps taken (restored by {@link #loadState}). @return the count */
    public long steps() {
        return optimizer.steps;
    }

    /**
     * Returns the micro-batch graph a model- or pipeline-parallel step runs through.
     *
     * @return the graph, borrowed
     */
    public MicroBatchGraph microBatches() {
        return graph;
    }

    /**
     * Runs forward and backward on one batch through the whole model; the gradients of this
     * batch replace the previous ones.
     *
     * @param features {@code [B, inputs]} float32, borrowed
     * @param labels {@code [B]} int32 classes or float32 targets, borrowed
     * @return the batch's mean loss
     */
    public float trainBatch(NDArray features, NDArray labels) {
        requireWhole("trainBatch");
        ModelSpecChecks.requireBatch(spec, features, labels);
        return GradMode.run(true, () -> {
            try (NDManager scope = manager.newSubManager()) {
                features.tempAttach(scope);
                labels.tempAttach(scope);
                params.zeroGradients();
                return backwardLoss(forward(features), labels, scope, 1f);
            }
        });
    }

    /**
     * Computes the mean loss and the predictions of a batch without touching the gradients.
     *
     * @param input the features (first stage) or the previous stage's activation
     * @param labels the labels, or null for predictions only; borrowed
     * @return the loss (NaN without labels) and the predictions, row-major {@code [B, outputs]}
     */
    public Scored score(NDArray input, NDArray labels) {
        if (!last) {
            throw new DmlException("Only the last stage scores; this one holds layers ["
                    + fromLayer + ", " + toLayer + ").", "Call infer on it, then score on the"
                    + " last stage.");
        }
        return noGrad(input, labels, out -> new Scored(labels == null ? Float.NaN
                : spec.objective().loss(out, onDevice(labels, labels.getManager())).getFloat(),
                spec.objective().predictions(out).toFloatArray()));
    }

    /** {@link #score(NDArray, NDArray)} on the previous stage's activation bytes. */
    public Scored score(byte[] activation, NDArray labels) {
        return decoded(activation, x -> score(x, labels));
    }

    /** {@link #infer(NDArray)} on the previous stage's activation bytes. */
    public byte[] infer(byte[] activation) {
        return decoded(activation, this::infer);
    }

    /**
     * Runs the stage forward without gradients, as inference or validation does.
     *
     * @param input the features (first stage) or the previous stage's activation, borrowed
     * @return the activation as bytes for the next stage
     */
    public byte[] infer(NDArray input) {
        return noGrad(input, null, TensorBytes::encode);
    }

    /**
     * Predicts a batch through the whole model: class probabilities {@code [B, k]}, a
     * positive-class probability {@code [B, 1]} or values {@code [B, 1]}, row-major.
     */
    public float[] predict(NDArray features) {
        requireWhole("predict");
        return score(features, null).predictions();
    }

    /** Sets every gradient to zero. */
    public void zeroGradients() {
        params.zeroGradients();
    }

    /** @param dst a buffer with {@link #parameterCount()} floats remaining; gets the gradients */
    public void copyGradients(FloatBuffer dst) {
        params.copyGradients(dst);
    }

    /** @return the gradients, flat, in a new array */
    public float[] gradients() {
        return flat(params::copyGradients);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the gradients in place */
    public void setGradients(FloatBuffer src) {
        params.setGradients(src);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the gradients in place */
    public void setGradients(float[] src) {
        params.setGradients(FloatBuffer.wrap(src));
    }

    /**
     * Applies one optimizer update from the gradients, in place, and ends a micro-batch step.
     * Under {@code --precision fp16} the gradients are unscaled first, and a step whose
     * gradients overflowed is skipped ({@link #skippedSteps()}).
     */
    public void step() {
        if (lossScale == null || lossScale.unscale(params)) {
            optimizer.apply(params);
        } else {
            params.zeroGradients();
        }
        graph.close();
    }

    /** Returns the steps fp16's loss scaling skipped for overflow. @return 0 in other precisions */
    public long skippedSteps() {
        return lossScale == null ? 0 : lossScale.skipped();
    }

    /** @return the parameters, flat, in a new array */
    public float[] parameters() {
        return flat(params::copyParameters);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the parameters in place */
    public void setParameters(float[] src) {
        params.setParameters(FloatBuffer.wrap(src));
    }

    /** @return the parameters and the optimizer state (moments, step count), as bytes */
    public byte[] saveState() {
        return StateCodec.save(description(), params, optimizer, lossScale);
    }

    /** @param state what {@link #saveState()} saved from a stage of the same specs and layers */
    public void loadState(byte[] state) {
        StateCodec.load(state, description(), params, optimizer, lossScale);
    }

    /**
     * Returns what each of this stage's layers costs, to balance stages on: its parameter count,
     * or, given an input, its forward and backward time (the median of {@code repeats} runs).
     *
     * @param x the stage's input {@code [b, ...]}, borrowed; null to count parameters
     * @param repeats runs per layer, at least 1
     * @return one cost per layer
     */
    public double[] layerCosts(NDArray x, int repeats) {
        return StageLayers.costs(blocks, layerStarts, store, manager, x, repeats);
    }

    @Override
    public void close() {
        graph.close();
        manager.close();
    }

    /** The loss and predictions of a scored batch; stays in this JVM. */
    public record Scored(float loss, float[] predictions) {}

    // ---- for MicroBatchGraph and Predictions: the model's own memory and forward pass ----

    NDManager manager() {
        return manager;
    }

    ParameterBuffers buffers() {
        return params;
    }

    FlatOptimizer optimizer() {
        return optimizer;
    }

    /** Replaces the optimizer and its state ({@link OptimizerShard}). */
    void replaceOptimizer(FlatOptimizer o) {
        optimizer = o;
    }

    /** The fp16 loss scale, or null. */
    LossScale lossScale() {
        return lossScale;
    }

    /** The index of each layer's first block in this stage. */
    int[] layerStarts() {
        return layerStarts.clone();
    }

    int blockCount() {
        return blocks.size();
    }

    /** Each layer's number of scalar parameters. */
    long[] layerParameters() {
        return StageLayers.parameters(blocks, layerStarts);
    }

    /** Runs the layers; an input elsewhere is copied to the device, in its own manager. */
    NDArray forward(NDArray x) {
        return forward(x, 0, blocks.size());
    }

    /** Runs blocks {@code [from, to)} of this stage, as {@link #forward(NDArray)} runs all. */
    NDArray forward(NDArray x, int from, int to) {
        return StageLayers.forward(blocks.subList(from, to), store, onDevice(x, x.getManager()));
    }

    /** The array on this stage's device: itself, or a copy owned by {@code scope}. */
    private NDArray onDevice(NDArray a, NDManager scope) {
        if (a.getDevice().equals(device)) {
            return a;
        }
        NDArray copy = a.toDevice(device, false);
        copy.attach(scope);
        return copy;
    }

    /** The loss of {@code out}, then its backward with weight {@code weight}; checks it. */
    float backwardLoss(NDArray out, NDArray labels, NDManager scope, float weight) {
        NDArray loss = spec.objective().loss(out, onDevice(labels, scope));
        float value = loss.getFloat();
        if (!Float.isFinite(value)) {
            throw new DmlException("The loss became " + value + " after " + optimizer.steps
                    + " steps.", lossScale != null ? "Use {precision=bf16}: a layer's output"
                    + " passed half floats' largest value, 65504." : "Lower {lr}, or scale the"
                    + " features (large raw values).");
        }
        // fp16: the backward starts from the scaled loss; step() divides the gradients again
        NDArray head = scope.full(loss.getShape(), lossScale == null ? weight
                : weight * lossScale.scale());
        JniUtils.backward((PtNDArray) loss, (PtNDArray) head, false, false);
        return value;
    }

    /** Runs forward without gradients; what is made from the borrowed arrays is freed. */
    private <T> T noGrad(NDArray input, NDArray labels,
            java.util.function.Function<NDArray, T> body) {
        return GradMode.run(false, () -> {
            try (NDManager scope = manager.newSubManager()) {
                input.tempAttach(scope);
                if (labels != null) {
                    labels.tempAttach(scope);
                }
                return body.apply(forward(input));
            }
        });
    }

    private <T> T decoded(byte[] activation, java.util.function.Function<NDArray, T> body) {
        try (NDManager scope = manager.newSubManager()) {
            return body.apply(TensorBytes.decode(activation, scope));
        }
    }

    private void requireWhole(String what) {
        if (!first || !last) {
            throw new DmlException(what + " needs the whole model; this stage holds layers ["
                    + fromLayer + ", " + toLayer + ").", "Use ModelStage.openWhole.");
        }
    }

    private String description() {
        return spec + " layers [" + fromLayer + ", " + toLayer + ")";
    }

    private float[] flat(java.util.function.Consumer<FloatBuffer> copy) {
        float[] out = new float[params.total()];
        copy.accept(FloatBuffer.wrap(out));
        return out;
    }
}
