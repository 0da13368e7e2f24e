package dev.dml.options;

/**
 * The order in which a stage runs its micro-batches' forward and backward passes ({@code
 * --schedule}).
 */
public enum PipelineSchedule implements Choice {
    /** All forwards, then all backwards (GPipe): simple; keeps every activation. */
    GPIPE,
    /** One forward, one backward once the pipeline is full (PipeDream-flush). */
    ONE_F_ONE_B;

    @Override
    public String word() {
        return this == ONE_F_ONE_B ? "1f1b" : Choice.super.word();
    }

    @Override
    public String toString() {
        return word();
    }
}
