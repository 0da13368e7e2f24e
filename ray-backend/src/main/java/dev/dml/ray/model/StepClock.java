package dev.dml.ray.model;

import dev.dml.events.StepPhase;

/**
 * Where a stage's training steps spend their time, summed by {@link StepPhase} since the stage
 * opened. Always on: a step reads the clock about eight times, which costs well under a
 * microsecond against steps of milliseconds. Only the stepping thread writes it.
 */
public final class StepClock {

    private final long[] nanos = new long[StepPhase.values().length];

    /**
     * Returns now, to start timing a phase.
     *
     * @return {@link System#nanoTime()}
     */
    public long now() {
        return System.nanoTime();
    }

    /**
     * Adds the time since {@code since} to a phase.
     *
     * @param phase the phase that ran
     * @param since when it started, from {@link #now} or a previous lap
     * @return now, where the next phase starts
     */
    public long lap(StepPhase phase, long since) {
        long t = System.nanoTime();
        nanos[phase.ordinal()] += t - since;
        return t;
    }

    /**
     * The nanoseconds each phase took so far, in {@link StepPhase}'s order.
     *
     * @return a new array
     */
    public long[] totals() {
        return nanos.clone();
    }

    /**
     * Milliseconds per step in each phase between two readings of {@link #totals}.
     *
     * @param before the earlier totals
     * @param after the later totals
     * @param steps the steps between them
     * @return one value per phase; NaN each without steps
     */
    public static double[] perStep(long[] before, long[] after, long steps) {
        double[] ms = new double[after.length];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = steps > 0 ? (after[i] - before[i]) / 1e6 / steps : Double.NaN;
        }
        return ms;
    }
}
