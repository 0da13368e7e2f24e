package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.dml.DmlException;
import java.util.HashMap;
import java.util.Map;

/**
 * The micro-batches of one model- or pipeline-parallel step on a {@link ModelStage}: each
 * micro-batch's input and output stay here from its forward until its backward.
 *
 * <p>A step on micro-batches {@code 0..M-1}: {@link #beginStep()}; for each micro-batch, {@link
 * #forward} (the last stage: {@link #forwardBackward}, which also runs the loss and its
 * backward), then {@link #backward} with the gradient the next stage returned; then the stage's
 * {@link ModelStage#step()}. The backward of a stage takes the upstream gradient {@code g}
 * through the scalar {@code sum(output * g)}, whose gradient with respect to the stage's
 * parameters and input is exactly the chain rule's; the input carries a gradient so that it can
 * be handed to the stage before. Gradients accumulate over the micro-batches of a step, and
 * activations cross between stages as compact bytes.
 */
public final class MicroBatchGraph implements AutoCloseable {

    private final ModelStage stage;
    private final Map<Integer, NDArray[]> pending = new HashMap<>();
    private NDManager stepScope;

    MicroBatchGraph(ModelStage stage) {
        this.stage = stage;
    }

    /** Starts a step: zeroes the gradients and frees the previous step's activations. */
    public void beginStep() {
        close();
        stage.zeroGradients();
        stepScope = stage.manager().newSubManager();
    }

    /**
     * Runs a first stage on a micro-batch of features and keeps its graph for {@link #backward}.
     *
     * @param microbatch the micro-batch's index in this step
     * @param features {@code [b, inputs]}, borrowed (copied)
     * @return the activation, as bytes for the next stage
     */
    public byte[] forward(int microbatch, NDArray features) {
        NDArray x = features.toDevice(stage.manager().getDevice(), true);
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
        if (stage.isFirst()) {
            x = features.toDevice(stage.manager().getDevice(), true);
            x.attach(scope());
        } else {
            x = input(activation);
        }
        return GradMode.run(true, () -> {
            float loss = stage.training().backwardLoss(stage.network().forward(x),
                    labels, scope(), weight);
            pending.put(microbatch, new NDArray[] {x, null});
            return loss;
        });
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
        GradMode.run(true, () -> {
            NDArray g = TensorBytes.decode(outputGradient, scope());
            NDArray dot = io[1].mul(g).sum();
            NDArray head = scope().ones(dot.getShape());
            JniUtils.backward((PtNDArray) dot, (PtNDArray) head, false, false);
            return null;
        });
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
        if (stage.isFirst()) {
            return null;
        }
        try (NDArray grad = io[0].getGradient()) {
            return TensorBytes.encode(grad);
        }
    }

    /** Frees the step's activations; the next step begins with {@link #beginStep()}. */
    @Override
    public void close() {
        pending.clear();
        if (stepScope != null) {
            stepScope.close();
            stepScope = null;
        }
    }

    private NDArray run(NDArray x) {
        return GradMode.run(true, () -> stage.network().forward(x));
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
}
