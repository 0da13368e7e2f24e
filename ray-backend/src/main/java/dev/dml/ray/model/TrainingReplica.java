package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.ParameterStore;
import dev.dml.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.ShardArrays;
import java.nio.FloatBuffer;
import java.util.function.Function;
import tech.tablesaw.api.Table;

/**
 * One model replica with its optimizer: the single-process training step that a data-parallel
 * worker repeats.
 *
 * <pre>{@code
 * try (TrainingReplica r = TrainingReplica.open(spec, OptimizerSpec.adam(1e-3f), "job/0")) {
 *     float loss = r.forwardBackward(x, y);   // gradients now in the parameters' .grad
 *     r.copyGradients(flat);                   // flat: a FloatBuffer of parameterCount() floats
 *     // ... all-reduce and average flat across workers ...
 *     flat.flip();
 *     r.setGradients(flat);                    // written in place into the gradient tensors
 *     r.step();                                // optimizer update, in place
 * }
 * }</pre>
 *
 * <p>The backward pass calls PyTorch's autograd directly ({@code JniUtils.backward}), not DJL's
 * {@code GradientCollector}, of which only one may be open per JVM; so several replicas may train
 * in one JVM, each on its own thread (grad mode is per thread). One replica must be used by one
 * thread at a time. The loss is the batch mean ({@link Objective}).
 *
 * <p>The replica owns its {@link NDManager} and the block's parameters; {@link #close()} frees
 * them. Input arrays are borrowed: temporaries made from them are freed before each method
 * returns.
 */
public final class TrainingReplica implements AutoCloseable {

    private final ModelSpec spec;
    private final OptimizerSpec optimizerSpec;
    private final NDManager manager;
    private final Block block;
    private final ParameterStore store;
    private final ParameterBuffers params;
    private final FlatOptimizer optimizer;

    private TrainingReplica(ModelSpec spec, OptimizerSpec opt, String name) {
        this.spec = spec;
        this.optimizerSpec = opt;
        this.manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        manager.setName(name);
        try {
            this.block = spec.newBlock();
            block.initialize(manager, DataType.FLOAT32, spec.inputShape());
            this.store = new ParameterStore(manager, false);
            this.params = new ParameterBuffers(block);
            params.initialize(spec.seed());
            this.optimizer = opt.newOptimizer(params.total());
            StageLayers.prime(java.util.List.of(block), store, manager, spec.inputShape());
            zeroGradients();
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /**
     * Builds the model, initialises it from the spec's seed (same seed, bitwise same parameters)
     * and creates the optimizer state.
     *
     * @param spec the model
     * @param optimizer the optimizer
     * @param name the name of the replica's NDManager, {@code job/rank} by convention
     * @return the replica, owned by the caller
     */
    public static TrainingReplica open(ModelSpec spec, OptimizerSpec optimizer, String name) {
        return new TrainingReplica(spec, optimizer, name);
    }

    /**
     * Returns the model spec.
     *
     * @return the spec
     */
    public ModelSpec spec() {
        return spec;
    }

    /**
     * Returns the optimizer spec.
     *
     * @return the optimizer spec
     */
    public OptimizerSpec optimizerSpec() {
        return optimizerSpec;
    }

    /**
     * Returns the DJL block (borrowed), for inspection or DJL APIs.
     *
     * @return the block
     */
    public Block block() {
        return block;
    }

    /**
     * Returns the number of scalar parameters, the length of every flat buffer.
     *
     * @return the parameter count
     */
    public int parameterCount() {
        return params.total();
    }

    /**
     * Returns the number of optimizer steps taken (restored by {@link #loadState}).
     *
     * @return the step count
     */
    public long steps() {
        return optimizer.steps;
    }

    /**
     * Runs forward and backward on one batch; the gradients of this batch replace the previous
     * ones.
     *
     * @param features {@code [B, inputs]} float32, borrowed
     * @param labels {@code [B]} int32 classes or float32 targets, borrowed
     * @return the batch's mean loss
     */
    public float forwardBackward(NDArray features, NDArray labels) {
        requireBatch(features, labels);
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try (NDManager scope = manager.newSubManager()) {
            features.tempAttach(scope);
            labels.tempAttach(scope);
            zeroGradients();
            NDList out = block.forward(store, new NDList(features), true);
            NDArray loss = spec.objective().loss(out.singletonOrThrow(), labels);
            NDArray head = scope.ones(loss.getShape());
            JniUtils.backward((PtNDArray) loss, (PtNDArray) head, false, false);
            float value = loss.getFloat();
            if (!Float.isFinite(value)) {
                throw new DmlException(
                        "The loss became " + value + " after " + optimizer.steps + " steps.",
                        "Lower the learning rate, or scale the features (large raw values).");
            }
            return value;
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    /**
     * Runs {@link #forwardBackward(NDArray, NDArray)} on rows {@code from..to-1} of a shard.
     *
     * @param data the decoded shard, borrowed
     * @param from the first row
     * @param to one past the last row
     * @return the batch's mean loss
     */
    public float forwardBackward(ShardArrays data, int from, int to) {
        if (data.labels() == null) {
            throw new DmlException(
                    "The shard has no label column, so there is nothing to train on.",
                    "Encode it with a ColumnSelection that calls setLabel(...).");
        }
        NDIndex rows = new NDIndex("{}:{}", from, to);
        try (NDArray x = data.features().get(rows);
                NDArray y = data.labels().get(rows)) {
            return forwardBackward(x, y);
        }
    }

    /**
     * Computes the mean loss of a batch without touching the gradients.
     *
     * @param features {@code [B, inputs]}, borrowed
     * @param labels {@code [B]}, borrowed
     * @return the mean loss
     */
    public float loss(NDArray features, NDArray labels) {
        requireBatch(features, labels);
        return noGrad(features, labels, out -> spec.objective().loss(out, labels).getFloat());
    }

    /** Sets every gradient to zero, e.g. for a worker that has no rows this step. */
    public void zeroGradients() {
        params.zeroGradients();
    }

    /**
     * Copies all gradients into {@code dst} from its position, in parameter order.
     *
     * @param dst a buffer with at least {@link #parameterCount()} floats remaining
     */
    public void copyGradients(FloatBuffer dst) {
        params.copyGradients(dst);
    }

    /**
     * Returns all gradients as a new flat array.
     *
     * @return {@link #parameterCount()} floats
     */
    public float[] gradients() {
        float[] g = new float[params.total()];
        params.copyGradients(FloatBuffer.wrap(g));
        return g;
    }

    /**
     * Overwrites all gradients, in place, with {@code src}'s remaining floats (e.g. the average
     * over workers).
     *
     * @param src exactly {@link #parameterCount()} floats remaining
     */
    public void setGradients(FloatBuffer src) {
        params.setGradients(src);
    }

    /**
     * Overwrites all gradients, in place.
     *
     * @param src exactly {@link #parameterCount()} floats
     */
    public void setGradients(float[] src) {
        params.setGradients(FloatBuffer.wrap(src));
    }

    /** Applies one optimizer update to every parameter, in place, from the current gradients. */
    public void step() {
        params.update(optimizer);
    }

    /**
     * Copies all parameters into {@code dst} from its position (for the rank-0 broadcast).
     *
     * @param dst a buffer with at least {@link #parameterCount()} floats remaining
     */
    public void copyParameters(FloatBuffer dst) {
        params.copyParameters(dst);
    }

    /**
     * Returns all parameters as a new flat array.
     *
     * @return {@link #parameterCount()} floats
     */
    public float[] parameters() {
        float[] p = new float[params.total()];
        params.copyParameters(FloatBuffer.wrap(p));
        return p;
    }

    /**
     * Overwrites all parameters, in place.
     *
     * @param src exactly {@link #parameterCount()} floats remaining
     */
    public void setParameters(FloatBuffer src) {
        params.setParameters(src);
    }

    /**
     * Overwrites all parameters, in place.
     *
     * @param src exactly {@link #parameterCount()} floats
     */
    public void setParameters(float[] src) {
        params.setParameters(FloatBuffer.wrap(src));
    }

    /**
     * Saves parameters and optimizer state (moments, step count) for a checkpoint.
     *
     * @return the state bytes
     */
    public byte[] saveState() {
        return StateCodec.save(spec, params, optimizer);
    }

    /**
     * Restores what {@link #saveState()} saved, from a replica of the same specs.
     *
     * @param state the state bytes
     */
    public void loadState(byte[] state) {
        StateCodec.load(state, spec, params, optimizer);
    }

    /**
     * Predicts a batch: class probabilities {@code [B, k]} (softmax), positive-class probability
     * {@code [B, 1]} (sigmoid) or values {@code [B, 1]} (L2), as a row-major heap array.
     *
     * @param features {@code [B, inputs]}, borrowed
     * @return {@code B * outputs} floats
     */
    public float[] predict(NDArray features) {
        return noGrad(features, null, out -> spec.objective().predictions(out).toFloatArray());
    }

    /**
     * Predicts every row of a table: see {@link #predict(NDArray)}. Rows are run in batches of
     * 4096; the table is validated first.
     *
     * @param table the table
     * @param selection its feature columns, in the order the model was trained on
     * @return one array of {@code outputs} floats per row
     */
    public float[][] predict(Table table, ColumnSelection selection) {
        return Predictions.predict(this, table, selection);
    }

    /**
     * Predicts the class of every row of a table (argmax, or probability &gt; 0.5 for sigmoid).
     *
     * @param table the table
     * @param selection its feature columns
     * @return one class index per row
     */
    public int[] predictClasses(Table table, ColumnSelection selection) {
        return Predictions.classes(this, table, selection);
    }

    NDManager manager() {
        return manager;
    }

    private <T> T noGrad(NDArray features, NDArray labels, Function<NDArray, T> body) {
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        try (NDManager scope = manager.newSubManager()) {
            features.tempAttach(scope);
            if (labels != null) {
                labels.tempAttach(scope);
            }
            NDList out = block.forward(store, new NDList(features), false);
            return body.apply(out.singletonOrThrow());
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    private void requireBatch(NDArray features, NDArray labels) {
        long[] s = features.getShape().getShape();
        if (s.length != 2 || s[1] != spec.inputs()) {
            throw new DmlException(
                    "The features have shape " + features.getShape() + ", but the model takes [B, "
                            + spec.inputs() + "].",
                    "Select " + spec.inputs() + " feature columns, or build the ModelSpec with"
                            + " setInputs(" + (s.length == 2 ? s[1] : "F") + ").");
        }
        if (labels.getShape().get(0) != s[0]) {
            throw new DmlException(
                    "The batch has " + s[0] + " feature rows but " + labels.getShape().get(0)
                            + " labels.",
                    "Slice features and labels with the same row range.");
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
