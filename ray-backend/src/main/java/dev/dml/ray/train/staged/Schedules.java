package dev.dml.ray.train.staged;

import java.util.ArrayList;
import java.util.List;

/**
 * The order in which one stage runs the forward and backward passes of a step's micro-batches.
 * An op is a micro-batch index {@code m} for its forward and {@code -(m + 1)} for its backward.
 * The last stage runs each backward inside its forward (the loss is there), so its order lists
 * forwards only.
 */
public final class Schedules {

    private Schedules() {}

    /**
     * GPipe: every forward, then every backward in reverse order.
     *
     * @param stage the stage, 0-based
     * @param stages the number of stages
     * @param microbatches the micro-batches per step
     * @return the ops, in order
     */
    public static int[] gpipe(int stage, int stages, int microbatches) {
        List<Integer> ops = new ArrayList<>();
        for (int m = 0; m < microbatches; m++) {
            ops.add(m);
        }
        if (stage < stages - 1) {
            for (int m = microbatches - 1; m >= 0; m--) {
                ops.add(backward(m));
            }
        }
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * 1F1B (PipeDream-flush): {@code stages - stage - 1} warm-up forwards, then one forward and
     * one backward in turn, then the remaining backwards. At most {@code stages - stage}
     * micro-batches' activations are alive on a stage at once.
     *
     * @param stage the stage, 0-based
     * @param stages the number of stages
     * @param microbatches the micro-batches per step
     * @return the ops, in order
     */
    public static int[] oneFOneB(int stage, int stages, int microbatches) {
        if (stage == stages - 1) {
            return gpipe(stage, stages, microbatches);
        }
        int warm = Math.min(stages - stage - 1, microbatches);
        List<Integer> ops = new ArrayList<>();
        for (int m = 0; m < warm; m++) {
            ops.add(m);
        }
        for (int i = 0; i < microbatches - warm; i++) {
            ops.add(warm + i);
            ops.add(backward(i));
        }
        for (int m = microbatches - warm; m < microbatches; m++) {
            ops.add(backward(m));
        }
        return ops.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Returns the op that is micro-batch {@code m}'s backward.
     *
     * @param m the micro-batch
     * @return {@code -(m + 1)}
     */
    public static int backward(int m) {
        return -(m + 1);
    }
}
