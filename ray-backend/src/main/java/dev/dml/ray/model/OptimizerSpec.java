package dev.dml.ray.model;

import dev.dml.DmlException;
import dev.dml.options.OptimizerKind;
import java.io.Serializable;
import java.util.Objects;

/**
 * Which optimizer updates the parameters, and its hyper-parameters.
 *
 * <p>A plain immutable {@link Serializable} class (not a record) so that it can be sent to Ray
 * workers. The optimizers are implemented in Java on the flat parameter and gradient buffers,
 * not with DJL's {@code Optimizer}: the update is exact, bitwise deterministic on every rank, and
 * its state (momentum, Adam moments, step count) is saved with the checkpoint.
 *
 * <ul>
 *   <li>SGD with momentum, as PyTorch: {@code v = mu v + g; p -= lr v}.
 *   <li>Adam: {@code m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
 *       p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)}.
 * </ul>
 *
 * <p>Three settings refine either ({@code --lr-schedule} and {@code --warmup}, {@code
 * --weight-decay}, {@code --clip-norm}):
 *
 * <ul>
 *   <li>{@code lr} at update {@code t} is {@link #learningRateAt(long) learningRate x
 *       schedule.factor(t)} ({@link LearningRateSchedule}).
 *   <li>Weight decay {@code w} applies to weights, not to biases or other 1-d parameters: SGD
 *       adds it to the gradient ({@code g += w p}, L2 as PyTorch's {@code SGD}); Adam decays
 *       the weights apart from the gradient ({@code p *= 1 - lr w} before the update, as
 *       PyTorch's {@code AdamW}).
 *   <li>A clip norm {@code C} scales the gradients by {@code C / ||g||} when their global L2
 *       norm is above {@code C}, before the update (the gradients a data-parallel rank got
 *       from the all-reduce, so every replica clips alike).
 * </ul>
 */
public final class OptimizerSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    private final OptimizerKind kind;
    private final float learningRate;
    private final float momentum;
    private final float beta1;
    private final float beta2;
    private final float epsilon;
    private final LearningRateSchedule schedule;
    private final float weightDecay;
    /** The global gradient norm to clip to; 0 does not clip. */
    private final float clipNorm;

    private OptimizerSpec(OptimizerKind kind, float lr, float momentum, float b1, float b2,
            float eps) {
        this(kind, lr, momentum, b1, b2, eps, LearningRateSchedule.constant(), 0f, 0f);
    }

    private OptimizerSpec(OptimizerKind kind, float lr, float momentum, float b1, float b2,
            float eps, LearningRateSchedule schedule, float weightDecay, float clipNorm) {
        this.kind = kind;
        this.learningRate = lr;
        this.momentum = momentum;
        this.beta1 = b1;
        this.beta2 = b2;
        this.epsilon = eps;
        this.schedule = schedule;
        this.weightDecay = weightDecay;
        this.clipNorm = clipNorm;
    }

    /**
     * SGD with momentum.
     *
     * @param learningRate the step size, positive
     * @param momentum the momentum in {@code [0, 1)}; 0 for plain SGD
     * @return the spec
     */
    public static OptimizerSpec sgd(float learningRate, float momentum) {
        checkRate(learningRate);
        checkUnit(momentum, "momentum");
        return new OptimizerSpec(OptimizerKind.SGD, learningRate, momentum, 0f, 0f, 0f);
    }

    /**
     * Adam with {@code beta1 = 0.9}, {@code beta2 = 0.999}, {@code eps = 1e-8}.
     *
     * @param learningRate the step size, positive
     * @return the spec
     */
    public static OptimizerSpec adam(float learningRate) {
        return adam(learningRate, 0.9f, 0.999f, 1e-8f);
    }

    /**
     * Adam.
     *
     * @param learningRate the step size, positive
     * @param beta1 the first-moment decay in {@code [0, 1)}
     * @param beta2 the second-moment decay in {@code [0, 1)}
     * @param epsilon the denominator guard, positive
     * @return the spec
     */
    public static OptimizerSpec adam(float learningRate, float beta1, float beta2, float epsilon) {
        checkRate(learningRate);
        checkUnit(beta1, "beta1");
        checkUnit(beta2, "beta2");
        if (!(epsilon > 0)) {
            throw new DmlException(
                    "Adam's epsilon must be positive, got " + epsilon + ".", "Use e.g. 1e-8.");
        }
        return new OptimizerSpec(OptimizerKind.ADAM, learningRate, 0f, beta1, beta2, epsilon);
    }

    /**
     * Returns the same optimizer with another learning rate.
     *
     * @param lr the new learning rate
     * @return a new spec
     */
    public OptimizerSpec withLearningRate(float lr) {
        checkRate(lr);
        return new OptimizerSpec(kind, lr, momentum, beta1, beta2, epsilon, schedule,
                weightDecay, clipNorm);
    }

    /**
     * Returns the optimizer that applies update directions whose momentum already ran on each
     * worker (top-k's momentum correction, {@code dev.dml.ray.collective.MomentumCorrection}):
     * plain SGD at this spec's rate and schedule, with its weight decay (without momentum, L2
     * and decoupled decay are the same update, {@code p = p (1 - lr w) - lr d}), and without
     * clipping, which each worker did on its own gradient.
     *
     * @return a new spec
     */
    public OptimizerSpec forCorrectedDirections() {
        return new OptimizerSpec(OptimizerKind.SGD, learningRate, 0f, 0f, 0f, 0f, schedule,
                weightDecay, 0f);
    }

    /** A spec saved before schedules existed reads back with the constant one. */
    private Object readResolve() {
        return schedule != null ? this : new OptimizerSpec(kind, learningRate, momentum, beta1,
                beta2, epsilon, LearningRateSchedule.constant(), weightDecay, clipNorm);
    }

    /**
     * Returns the same optimizer with a learning-rate schedule.
     *
     * @param s the schedule; {@link LearningRateSchedule#constant()} keeps the rate
     * @return a new spec
     */
    public OptimizerSpec withSchedule(LearningRateSchedule s) {
        return new OptimizerSpec(kind, learningRate, momentum, beta1, beta2, epsilon,
                java.util.Objects.requireNonNull(s, "schedule"), weightDecay, clipNorm);
    }

    /**
     * Returns the same optimizer with weight decay on the weights: L2 for SGD, decoupled
     * (AdamW) for Adam.
     *
     * @param w the decay, 0 or more; 0 turns it off
     * @return a new spec
     */
    public OptimizerSpec withWeightDecay(float w) {
        if (!(w >= 0) || Float.isInfinite(w)) {
            throw new DmlException("The weight decay must be 0 or more, got " + w + ".",
                    "Use e.g. 0.01.");
        }
        return new OptimizerSpec(kind, learningRate, momentum, beta1, beta2, epsilon, schedule,
                w, clipNorm);
    }

    /**
     * Returns the same optimizer clipping the gradients to a global L2 norm.
     *
     * @param c the norm, above 0; 0 turns clipping off
     * @return a new spec
     */
    public OptimizerSpec withClipNorm(float c) {
        if (!(c >= 0) || Float.isInfinite(c)) {
            throw new DmlException("The clip norm must be above 0, got " + c + ".",
                    "Use e.g. 1.0.");
        }
        return new OptimizerSpec(kind, learningRate, momentum, beta1, beta2, epsilon, schedule,
                weightDecay, c);
    }

    /**
     * Returns the learning rate of one update: the base rate times the schedule's factor.
     *
     * @param step the update's global step, counting from 0
     * @return the rate
     */
    public float learningRateAt(long step) {
        return (float) (learningRate * schedule.factor(step));
    }

    /**
     * Returns the learning-rate schedule.
     *
     * @return the schedule, constant by default
     */
    public LearningRateSchedule schedule() {
        return schedule;
    }

    /**
     * Returns the weight decay.
     *
     * @return 0 (none) or more
     */
    public float weightDecay() {
        return weightDecay;
    }

    /**
     * Returns the global gradient norm the gradients are clipped to.
     *
     * @return the norm, 0 when gradients are not clipped
     */
    public float clipNorm() {
        return clipNorm;
    }

    /**
     * Returns the algorithm.
     *
     * @return the kind
     */
    public OptimizerKind kind() {
        return kind;
    }

    /**
     * Returns the learning rate.
     *
     * @return the step size
     */
    public float learningRate() {
        return learningRate;
    }

    /**
     * Returns the SGD momentum (0 for Adam).
     *
     * @return the momentum
     */
    public float momentum() {
        return momentum;
    }

    /**
     * Returns Adam's beta1 (0 for SGD).
     *
     * @return beta1
     */
    public float beta1() {
        return beta1;
    }

    /**
     * Returns Adam's beta2 (0 for SGD).
     *
     * @return beta2
     */
    public float beta2() {
        return beta2;
    }

    /**
     * Returns Adam's epsilon (0 for SGD).
     *
     * @return epsilon
     */
    public float epsilon() {
        return epsilon;
    }

    /**
     * Creates the optimizer of some parameters: NDArray operations on their device where their
     * values are staged through the host (a GPU), else the Java loop over host views.
     */
    FlatOptimizer newOptimizer(ParameterBuffers params, ai.djl.ndarray.NDManager manager) {
        return params.staged() ? new DeviceOptimizer(this, params, manager)
                : newOptimizer(params.total());
    }

    /** Creates the host optimizer state for {@code parameterCount} parameters. */
    FlatOptimizer newOptimizer(int parameterCount) {
        return kind == OptimizerKind.SGD
                ? new FlatOptimizer.SgdMomentum(this, parameterCount)
                : new FlatOptimizer.Adam(this, parameterCount);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof OptimizerSpec)) {
            return false;
        }
        OptimizerSpec s = (OptimizerSpec) o;
        return kind == s.kind && learningRate == s.learningRate && momentum == s.momentum
                && beta1 == s.beta1 && beta2 == s.beta2 && epsilon == s.epsilon
                && schedule.equals(s.schedule) && weightDecay == s.weightDecay
                && clipNorm == s.clipNorm;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, learningRate, momentum, beta1, beta2, epsilon, schedule,
                weightDecay, clipNorm);
    }

    @Override
    public String toString() {
        String knobs = (schedule instanceof LearningRateSchedule.Constant ? ""
                : ", schedule=" + schedule) + (weightDecay == 0 ? "" : ", weightDecay="
                + weightDecay) + (clipNorm == 0 ? "" : ", clipNorm=" + clipNorm);
        return kind == OptimizerKind.SGD
                ? "SGD{lr=" + learningRate + ", momentum=" + momentum + knobs + "}"
                : "Adam{lr=" + learningRate + ", betas=(" + beta1 + ", " + beta2 + "), eps="
                        + epsilon + knobs + "}";
    }

    private static void checkRate(float lr) {
        if (!(lr > 0) || Float.isInfinite(lr)) {
            throw new DmlException(
                    "The learning rate must be a positive number, got " + lr + ".",
                    "Use e.g. 0.1 for SGD or 0.001 for Adam.");
        }
    }

    private static void checkUnit(float v, String name) {
        if (!(v >= 0 && v < 1)) {
            throw new DmlException(
                    "The optimizer's " + name + " must be in [0, 1), got " + v + ".",
                    "Use e.g. 0.9.");
        }
    }
}
