package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.dml.DmlException;
import dev.dml.events.StepPhase;

/**
 * The training side of a {@link ModelStage}: the loss and its backward into the parameter
 * buffers, the optimizer that applies the gradients, fp16's loss scale around both, and the
 * state they make up together (parameters, moments, step count, scale).
 *
 * <p>The backward calls PyTorch's autograd directly ({@code JniUtils.backward}), not DJL's
 * {@code GradientCollector}, of which only one may be open per JVM.
 */
final class StageTraining {

    private final Objective objective;
    private final StageNetwork network;
    private final ParameterBuffers params;
    /** The fp16 loss scale; null in other precisions. */
    private final LossScale lossScale;
    private FlatOptimizer optimizer;
    private final StepClock clock = new StepClock();

    /**
     * The training side of {@code network}: its loss, a new optimizer of {@code params}, and
     * a loss scale where {@code precision} needs one.
     */
    StageTraining(ModelSpec spec, OptimizerSpec opt, StageNetwork network,
            ParameterBuffers params, Precision precision) {
        this.objective = spec.objective();
        this.network = network;
        this.params = params;
        this.optimizer = opt.newOptimizer(params, network.manager());
        this.lossScale = precision.scalesLoss() ? new LossScale() : null;
    }

    /** Forward and backward of one batch through every block; its gradients replace the last. */
    float trainBatch(NDArray features, NDArray labels) {
        return trainBatch(features, labels, true);
    }

    /** As {@link #trainBatch(NDArray, NDArray)}; {@code !replace} adds to the gradients held. */
    float trainBatch(NDArray features, NDArray labels, boolean replace) {
        return GradMode.run(true, () -> {
            try (NDManager scope = network.manager().newSubManager()) {
                features.tempAttach(scope);
                labels.tempAttach(scope);
                long t = clock.now();
                if (replace) {
                    params.zeroGradients();
                }
                NDArray out = network.forward(features);
                clock.lap(StepPhase.FORWARD, t);
                return backwardLoss(out, labels, scope, 1f);
            }
        });
    }

    /** The loss of {@code out}, then its backward with weight {@code weight}; checks it. */
    float backwardLoss(NDArray out, NDArray labels, NDManager scope, float weight) {
        long t = clock.now();
        NDArray loss = objective.loss(out, network.onDevice(labels, scope));
        float value = loss.getFloat();
        t = clock.lap(StepPhase.LOSS, t);
        if (!Float.isFinite(value)) {
            throw new DmlException("The loss became " + value + " after " + optimizer.steps
                    + " steps.", lossScale != null ? "Use {precision=bf16}: a layer's output"
                    + " passed half floats' largest value, 65504." : "Lower {lr}, or scale the"
                    + " features (large raw values).");
        }
        // fp16: the backward starts from the scaled loss; apply() divides the gradients again
        NDArray head = scope.full(loss.getShape(), lossScale == null ? weight
                : weight * lossScale.scale());
        JniUtils.backward((PtNDArray) loss, (PtNDArray) head, false, false);
        clock.lap(StepPhase.BACKWARD, t);
        return value;
    }

    /**
     * Applies one optimizer update from the gradients, in place; under fp16 unscales them
     * first, and skips (zeroes) them when they overflowed.
     */
    void apply() {
        long t = clock.now();
        if (lossScale == null || lossScale.unscale(params)) {
            optimizer.apply(params);
        } else {
            params.zeroGradients();
        }
        clock.lap(StepPhase.OPTIMIZER, t);
    }

    /** Where this stage's steps spent their time. */
    StepClock clock() {
        return clock;
    }

    /** The optimizer steps taken. */
    long steps() {
        return optimizer.steps;
    }

    /** The steps fp16's loss scaling skipped for overflow; 0 in other precisions. */
    long skippedSteps() {
        return lossScale == null ? 0 : lossScale.skipped();
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

    /** The parameters, the optimizer's state and the loss scale, as bytes. */
    byte[] saveState(String description) {
        return StateCodec.save(description, params, optimizer, lossScale);
    }

    /** Restores what {@link #saveState} saved for the same {@code description}. */
    void loadState(byte[] state, String description) {
        StateCodec.load(state, description, params, optimizer, lossScale);
    }
}
