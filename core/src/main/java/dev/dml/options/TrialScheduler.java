package dev.dml.options;

/** Early stopping of a sweep's weak trials ({@code --scheduler}). */
public enum TrialScheduler implements Choice {
    /** Stops a trial at an epoch rung when its metric is not among the best. */
    ASHA,
    /** Runs every trial to its end. */
    NONE;

    @Override
    public String toString() {
        return word();
    }
}
