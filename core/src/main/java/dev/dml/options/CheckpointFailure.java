package dev.dml.options;

/** What a failed checkpoint write does ({@code --checkpoint-failure}). */
public enum CheckpointFailure implements Choice {
    /** Say so and train on. */
    WARN,
    /** Stop the job. */
    STOP;

    @Override
    public String toString() {
        return word();
    }
}
