package dev.dml.ray.train;

import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps and epochs a job's result keeps, and the running sums of the epoch in progress.
 * After a {@link Recovery} the steps past its restored state run again, so their first runs
 * leave the record here and the epoch's sums are counted again from what is kept.
 */
final class JobHistory implements DriverListener {

    private final int examplesPerStep;
    private final int stepsPerEpoch;
    private final List<StepMetrics> steps = new ArrayList<>();
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
        steps.add(step);
        epoch.add(step);
    }

    @Override
    public void onEpoch(EpochMetrics e) {
        epochs.add(e);
    }

    @Override
    public void onRecovery(Recovery recovery) {
        long kept = recovery.resumedFrom();
        steps.removeIf(m -> m.step() > kept);
        epochs.removeIf(m -> m.steps() > kept);
        epoch = new EpochTotals(examplesPerStep);
        long epochStart = (kept / stepsPerEpoch) * stepsPerEpoch;
        for (StepMetrics m : steps) {
            if (m.step() > epochStart) {
                epoch.add(m);
            }
        }
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

    /** The steps kept, in order. */
    List<StepMetrics> steps() {
        return steps;
    }

    /** The epochs kept, in order. */
    List<EpochMetrics> epochs() {
        return epochs;
    }
}
