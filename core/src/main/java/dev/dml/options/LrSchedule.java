package dev.dml.options;

import java.io.Serializable;

/**
 * How the learning rate changes over a job ({@code --lr-schedule}): constant, multiplied by
 * {@code GAMMA} every {@code EVERY} epochs ({@code step:EVERY:GAMMA}), or along a half cosine.
 *
 * @param kind constant, step or cosine
 * @param text the value in lower case, numbers as written
 */
public record LrSchedule(Kind kind, String text) implements Serializable {

    /** The shapes of a schedule. */
    public enum Kind {
        /** The rate as set. */
        CONSTANT,
        /** Multiplied by a factor every few epochs. */
        STEP,
        /** Decayed along a half cosine to 0 at the job's last step. */
        COSINE
    }

    /** The rate as set: the default. */
    public static final LrSchedule CONSTANT = new LrSchedule(Kind.CONSTANT, "constant");

    /**
     * Reads a {@code --lr-schedule} value.
     *
     * @param s the value, in lower case
     * @return the schedule
     * @throws RuntimeException when the text is no schedule
     */
    static LrSchedule parse(String s) {
        if (s.equals("constant")) {
            return CONSTANT;
        }
        if (s.equals("cosine")) {
            return new LrSchedule(Kind.COSINE, s);
        }
        String[] parts = s.split(":", -1);
        if (parts.length != 3 || !parts[0].equals("step")) {
            throw new IllegalArgumentException(s);
        }
        LrSchedule step = new LrSchedule(Kind.STEP, s);
        if (step.every() < 1 || !(step.gamma() > 0 && step.gamma() < 1)) {
            throw new IllegalArgumentException(s);
        }
        return step;
    }

    /**
     * Returns the epochs between two steps of a {@code step:EVERY:GAMMA} schedule.
     *
     * @return EVERY
     */
    public int every() {
        return Integer.parseInt(text.split(":")[1]);
    }

    /**
     * Returns the factor of a {@code step:EVERY:GAMMA} schedule.
     *
     * @return GAMMA
     */
    public double gamma() {
        return Double.parseDouble(text.split(":")[2]);
    }

    /** The value as a user types it, e.g. {@code step:10:0.5}. */
    @Override
    public String toString() {
        return text;
    }
}
