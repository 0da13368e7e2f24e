package dev.dml.bench;

/**
 * The round a {@link Trial} runs in. A trial that times parts of itself records them here; the
 * parts of warm-up rounds are dropped, like the warm-up times themselves.
 */
public final class Round {

    private final boolean timed;

    Round(boolean timed) {
        this.timed = timed;
    }

    /**
     * Tells whether this round is timed (not a warm-up).
     *
     * @return {@code true} in a timed round
     */
    public boolean timed() {
        return timed;
    }

    /**
     * Records the time of a part of the trial, in timed rounds only.
     *
     * @param part where the part's times go
     * @param seconds the part's time
     */
    public void record(TrialTimes part, double seconds) {
        if (timed) {
            part.add(seconds);
        }
    }
}
