package dev.dml.ray.train.runner;

import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import dev.dml.ray.train.worker.Evaluation;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps and epochs a job's result keeps, and the running sums of the epoch in progress.
 * After a {@link Recovery} the steps past its restored state run again, so their first runs
 * leave the record here and the epoch's sums are counted again from what is kept.
 *
 * <p>Memory stays bounded however long a job runs (the S1 soak: a job of 290 steps a second
 * kept a million steps, 120 MB, in an hour). The last {@value #RECENT} steps are all kept;
 * of the steps before them, every {@code stride}-th, and the stride doubles whenever more than
 * {@value #EARLIER} are kept, as TensorBoard keeps a bounded sample of a long run's scalars.
 */
final class JobHistory implements DriverListener {

    /** The latest steps, all kept. */
    static final int RECENT = 10_000;
    /** At most this many steps before them, evenly spaced. */
    static final int EARLIER = 10_000;

    private final int examplesPerStep;
    private final int stepsPerEpoch;
    private final List<StepMetrics> earlier = new ArrayList<>();
    private final ArrayDeque<StepMetrics> recent = new ArrayDeque<>();
    private long stride = 1;
    private final List<EpochMetrics> epochs = new ArrayList<>();
    private EpochTotals epoch;

    /**
     * @param examplesPerStep the examples in one step of every worker together
     * @param stepsPerEpoch the steps in one epoch
     */
    JobHistory(int examplesPerStep, int stepsPerEpoch) {
        this.examplesPerStep = examplesPerStep;
        this.stepsPerEpoch = stepsPerEpoch;
        this.epoch = new EpochTotals(examplesPerStep);
    }

    @Override
    public void onStep(StepMetrics step) {
        recent.addLast(step);
        epoch.add(step);
        if (recent.size() <= RECENT) {
            return;
        }
        StepMetrics older = recent.removeFirst();
        if (older.step() % stride == 0) {
            earlier.add(older);
            if (earlier.size() > EARLIER) {
                stride *= 2;
                earlier.removeIf(m -> m.step() % stride != 0);
            }
        }
    }

    @Override
    public void onEpoch(EpochMetrics e) {
        epochs.add(e);
    }

    @Override
    public void onRecovery(Recovery recovery) {
        long kept = recovery.resumedFrom();
        earlier.removeIf(m -> m.step() > kept);
        recent.removeIf(m -> m.step() > kept);
        epochs.removeIf(m -> m.steps() > kept);
        epoch = new EpochTotals(examplesPerStep);
        long epochStart = (kept / stepsPerEpoch) * stepsPerEpoch;
        // the epoch's steps up to the restored one; from a sample of them when a recovery went
        // back past the steps all kept (a checkpoint far back in a long job)
        List<StepMetrics> ran = steps().stream().filter(m -> m.step() > epochStart).toList();
        epoch.recount(ran, (int) (kept - epochStart));
    }

    /**
     * Ends the epoch in progress; the caller emits it, and {@link #onEpoch} keeps it.
     *
     * @param number the epoch, from 1
     * @param step the steps run so far
     * @param eval the validation of this epoch, or null without a validation table
     */
    EpochMetrics endEpoch(int number, long step, Evaluation eval) {
        return epoch.end(number, step, eval);
    }

    /** The steps kept, in order: every step of a short job, a bounded sample of a long one. */
    List<StepMetrics> steps() {
        List<StepMetrics> out = new ArrayList<>(earlier.size() + recent.size());
        out.addAll(earlier);
        out.addAll(recent);
        return out;
    }

    /** The epochs kept, in order. */
    List<EpochMetrics> epochs() {
        return epochs;
    }
}
