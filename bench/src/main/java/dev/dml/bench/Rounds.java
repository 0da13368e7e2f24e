package dev.dml.bench;

/**
 * How often a benchmark runs its trials: untimed warm-up rounds first (JIT, first touch of the
 * tensors, a fresh cluster's code fetch), then the timed rounds its samples come from.
 *
 * @param warmups untimed rounds first, at least 0
 * @param timed timed rounds, at least 1
 */
record Rounds(int warmups, int timed) {

    /** Checks the counts. */
    Rounds {
        if (warmups < 0 || timed < 1) {
            throw new IllegalArgumentException("Need warmups >= 0 and repetitions >= 1, got "
                    + warmups + " and " + timed + ".");
        }
    }

    /** Every round, warm-ups included. */
    int total() {
        return warmups + timed;
    }

    /** Says so in a result's method, e.g. {@code 1 warm-up round, then 5 timed rounds}. */
    String describe() {
        return warmups + " warm-up round" + (warmups == 1 ? "" : "s") + ", then " + timed
                + " timed rounds";
    }

    /** Whether round {@code r} (counting warm-ups from 0) is timed. */
    boolean isTimed(int r) {
        return r >= warmups;
    }
}
