package dev.dml.options;

/** How an automatic split balances a staged job's stages ({@code --balance}). */
public enum StageBalance implements Choice {
    /** Equal parameter counts, known before any actor starts. */
    PARAMETERS,
    /** Equal forward+backward time, measured on one micro-batch when the job starts. */
    TIME;

    @Override
    public String word() {
        return this == PARAMETERS ? "params" : Choice.super.word();
    }

    @Override
    public String toString() {
        return word();
    }
}
