package dev.dml.tune;

/** Where a trial of a sweep stands. */
public enum TrialStatus {
    /** Not started yet. */
    WAITING("waiting"),
    /** Its job runs. */
    RUNNING("running"),
    /** It ran all its epochs (or its own --early-stop ended it). */
    DONE("done"),
    /** ASHA stopped it at a rung. */
    STOPPED_EARLY("stopped early"),
    /** The sweep's --budget or --deadline, or an interrupt, stopped it. */
    STOPPED("stopped"),
    /** Its job failed, or did not start. */
    FAILED("failed"),
    /** The sweep ended before its turn came. */
    NOT_RUN("not run");

    private final String word;

    TrialStatus(String word) {
        this.word = word;
    }

    /**
     * Returns the status as the sweep's table shows it.
     *
     * @return e.g. {@code stopped early}
     */
    public String word() {
        return word;
    }

    /**
     * Tells whether the trial has ended.
     *
     * @return whether it will not change any more
     */
    public boolean ended() {
        return this != WAITING && this != RUNNING;
    }
}
