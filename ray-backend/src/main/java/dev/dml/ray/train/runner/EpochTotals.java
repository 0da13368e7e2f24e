package dev.dml.ray.train.runner;

import dev.dml.events.RegressionMetrics;
import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.ray.train.worker.Evaluation;
import java.util.List;

/** One epoch's running sums, for its {@link EpochMetrics}; in the driver's job loop. */
final class EpochTotals {
    private final int examplesPerStep;
    private double loss;
    private int steps;
    private long startNanos = System.nanoTime();

    EpochTotals(int examplesPerStep) {
        this.examplesPerStep = examplesPerStep;
    }

    void add(StepMetrics m) {
        loss += m.loss();
        steps++;
    }

    /**
     * Counts the epoch's first {@code ran} steps again, after a recovery, from those kept: all
     * of them, or an even sample whose mean loss stands for theirs.
     */
    void recount(List<StepMetrics> kept, int ran) {
        loss = 0;
        steps = 0;
        for (StepMetrics m : kept) {
            add(m);
        }
        if (steps > 0 && steps != ran) {
            loss = loss / steps * ran;
            steps = ran;
        }
    }

    EpochMetrics end(int epoch, long step, Evaluation eval) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        EpochMetrics em = new EpochMetrics(epoch, step, steps, (float) (loss / steps),
                seconds, (double) steps * examplesPerStep / seconds,
                eval == null ? Float.NaN : eval.loss(),
                eval == null ? Double.NaN : eval.accuracy(),
                eval == null ? Double.NaN : eval.auc(),
                eval == null ? RegressionMetrics.NONE : eval.regression());
        loss = 0;
        steps = 0;
        startNanos = System.nanoTime();
        return em;
    }
}
