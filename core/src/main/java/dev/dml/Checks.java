package dev.dml;

import java.time.Duration;

/**
 * The checks builders' setters share: each rejects a bad value at once with one line that names
 * the setting and the value, and one line on what to pass instead.
 */
public final class Checks {

    private Checks() {}

    /**
     * Requires a count of at least {@code min}.
     *
     * @param what the setting as the message names it, e.g. {@code {workers}} or {@code numCpus}
     * @param value the value given
     * @param min the smallest value allowed
     * @param hint what to pass instead
     * @return {@code value}
     * @throws DmlException "WHAT must be at least MIN, got VALUE." when it is smaller
     */
    public static int atLeast(String what, int value, int min, String hint) {
        if (value < min) {
            throw new DmlException(what + " must be at least " + min + ", got " + value + ".",
                    hint);
        }
        return value;
    }

    /**
     * Requires a positive duration.
     *
     * @param what the setter as the message names it, e.g. {@code ClusterSpec.optStartTimeout}
     * @param value the duration given
     * @return {@code value}
     * @throws DmlException "WHAT needs a positive duration, got VALUE." when it is null, zero or
     *     negative
     */
    public static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new DmlException(what + " needs a positive duration, got " + value + ".",
                    "Pass a duration such as Duration.ofSeconds(30).");
        }
        return value;
    }
}
