package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import dev.dml.DmlException;
import dev.dml.events.StepPhase;
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
 * <p>A stage is composed of parts, each with one concern: {@code StageNetwork} (the blocks,
 * their device and memory, the forward pass), {@link ParameterBuffers} (the flat parameters and
 * gradients), {@code StageTraining} (the loss and its backward through PyTorch's autograd, the
 * optimizer, fp16's loss scale, the saved state) and {@link MicroBatchGraph}. Owns its memory;
 * one thread at a time (grad mode is set on each call's thread). Input arrays are borrowed.
 */
public final class ModelStage implements AutoCloseable {

    private final ModelSpec spec;
    private final OptimizerSpec optimizerSpec;
    private final int fromLayer;
    private final int toLayer;
    private final boolean first;
    private final boolean last;
    private final StageNetwork network;
    private final ParameterBuffers params;
    private final StageTraining training;
    private final MicroBatchGraph graph;

    private ModelStage(ModelSpec spec, OptimizerSpec opt, int from, int to, String name,
            Device device, Precision precision, boolean staged) {
        this.spec = spec;
        this.optimizerSpec = opt;
        this.network = StageNetwork.open(spec, from, to, name, device, precision);
        this.fromLayer = from;
        this.toLayer = to;
        this.first = from == 0;
        this.last = network.last();
        try {
            this.params = new ParameterBuffers(network.block(),
                    staged || !device.equals(Device.cpu()));
            params.initialize(spec.seed(), network.randomDraws());
            this.training = new StageTraining(spec, opt, network, params, precision);
            network.prime();
            params.zeroGradients();
            this.graph = new MicroBatchGraph(this);
        } catch (RuntimeException e) {
            network.close();
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
        return network.block();
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
        return network.parameterOffset();
    }

    /** Returns the optimizer steps taken (restored by {@link #loadState}). @return the count */
    public long steps() {
        return training.steps();
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
        return training.trainBatch(features, labels);
    }

    /**
     * Like {@link #trainBatch} but adds this batch's gradients to those the model holds, as
     * PyTorch's backward does: {@link #zeroGradients} first to start a sum of batches.
     *
     * @return the batch's mean loss
     */
    public float addBatch(NDArray features, NDArray labels) {
        requireWhole("addBatch");
        ModelSpecChecks.requireBatch(spec, features, labels);
        return training.trainBatch(features, labels, false);
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
        return network.noGrad(input, labels, out -> new Scored(labels == null ? Float.NaN
                : spec.objective().loss(out, network.onDevice(labels, labels.getManager()))
                        .getFloat(), spec.objective().predictions(out).toFloatArray()));
    }

    /** {@link #score(NDArray, NDArray)} on the previous stage's activation bytes. */
    public Scored score(byte[] activation, NDArray labels) {
        return network.decoded(activation, x -> score(x, labels));
    }

    /** {@link #infer(NDArray)} on the previous stage's activation bytes. */
    public byte[] infer(byte[] activation) {
        return network.decoded(activation, this::infer);
    }

    /**
     * Runs the stage forward without gradients, as inference or validation does.
     *
     * @param input the features (first stage) or the previous stage's activation, borrowed
     * @return the activation as bytes for the next stage
     */
    public byte[] infer(NDArray input) {
        return network.noGrad(input, null, TensorBytes::encode);
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
        long t = clock().now();
        params.copyGradients(dst);
        clock().lap(StepPhase.COPIES, t);
    }

    /** @return the gradients, flat, in a new array */
    public float[] gradients() {
        return flat(params::copyGradients);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the gradients in place */
    public void setGradients(FloatBuffer src) {
        long t = clock().now();
        params.setGradients(src);
        clock().lap(StepPhase.COPIES, t);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the gradients in place */
    public void setGradients(float[] src) {
        setGradients(FloatBuffer.wrap(src));
    }

    /**
     * Applies one optimizer update from the gradients, in place, and ends a micro-batch step.
     * Under {@code --precision fp16} the gradients are unscaled first, and a step whose
     * gradients overflowed is skipped ({@link #skippedSteps()}).
     */
    public void step() {
        training.apply();
        graph.close();
    }

    /** Returns the steps fp16's loss scaling skipped for overflow. @return 0 in other precisions */
    public long skippedSteps() {
        return training.skippedSteps();
    }

    /** @return the parameters, flat, in a new array */
    public float[] parameters() {
        return flat(params::copyParameters);
    }

    /** @param src {@link #parameterCount()} floats; overwrite the parameters in place */
    public void setParameters(float[] src) {
        long t = clock().now();
        params.setParameters(FloatBuffer.wrap(src));
        clock().lap(StepPhase.COPIES, t);
    }

    /**
     * Where this stage's training steps spent their time so far, by phase: the worker reports
     * it per step, and a benchmark reads the same clock on a step alone.
     *
     * @return the stage's clock
     */
    public StepClock clock() {
        return training.clock();
    }

    /** @return the parameters and the optimizer state (moments, step count), as bytes */
    public byte[] saveState() {
        return training.saveState(description());
    }

    /** @param state what {@link #saveState()} saved from a stage of the same specs and layers */
    public void loadState(byte[] state) {
        training.loadState(state, description());
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
        return network.layerCosts(x, repeats);
    }

    @Override
    public void close() {
        graph.close();
        network.close();
    }

    /** The loss and predictions of a scored batch; stays in this JVM. */
    public record Scored(float loss, float[] predictions) {}

    // ---- its parts, for MicroBatchGraph, BucketedBackward, OptimizerShard and Predictions ----

    /** The blocks, their device and memory, and the forward pass. */
    StageNetwork network() {
        return network;
    }

    /** The loss and backward, the optimizer and the fp16 loss scale. */
    StageTraining training() {
        return training;
    }

    /** The flat parameters and gradients. */
    ParameterBuffers buffers() {
        return params;
    }

    NDManager manager() {
        return network.manager();
    }

    /** The fp16 loss scale, or null. */
    LossScale lossScale() {
        return training.lossScale();
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
