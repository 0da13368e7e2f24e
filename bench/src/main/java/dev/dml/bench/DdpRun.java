package dev.dml.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * One training run of P3, dml or PyTorch, on one clock: seconds since the run was launched
 * ({@code Dml.start}, or the start of the Python process).
 *
 * @param firstStepAt when the first step started: the start-up (actor or process start, data,
 *     model, process group) lies before it
 * @param stepEndAt when each step's end was known, indexed by step (1-based; index 0 unused).
 *     dml reports steps in chunks, so the steps of a chunk share its arrival time
 * @param finalLoss the last step's loss, to check that the runs of a side train alike
 * @param accuracy test accuracy after every evaluated step (trajectory runs only, else empty)
 * @param parts the side's own break-down of a step, in milliseconds (dml only, else empty)
 */
record DdpRun(double firstStepAt, double[] stepEndAt, float finalLoss,
        Map<Integer, Double> accuracy, Map<String, Double> parts) {

    /** Returns the number of steps run. */
    int steps() {
        return stepEndAt.length - 1;
    }

    /** Returns the seconds from the end of step {@code from} to the end of the last step. */
    double secondsAfter(int from) {
        return at(steps()) - at(from);
    }

    /** Returns the seconds from the first step's start to the end of {@code step}. */
    double trainingSecondsTo(int step) {
        return at(step) - firstStepAt;
    }

    /** Returns the seconds from the launch to the end of {@code step}. */
    double launchSecondsTo(int step) {
        return at(step);
    }

    /** Returns the first evaluated step whose accuracy reaches {@code target}, or -1. */
    int firstStepReaching(double target) {
        for (Map.Entry<Integer, Double> e : new TreeMap<>(accuracy).entrySet()) {
            if (e.getValue() >= target) {
                return e.getKey();
            }
        }
        return -1;
    }

    private double at(int step) {
        double t = stepEndAt[step];
        if (Double.isNaN(t)) {
            throw new IllegalStateException("No time was recorded for step " + step + ".");
        }
        return t;
    }
}
