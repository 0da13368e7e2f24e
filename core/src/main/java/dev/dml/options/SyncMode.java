package dev.dml.options;

import java.io.Serializable;

import java.util.Locale;

/**
 * How data-parallel workers agree on the parameters ({@code --sync}): an all-reduce every step,
 * or updates through parameter servers without waiting for the others ({@code async}), at most
 * {@code S} steps ahead of the slowest ({@code ssp:S}).
 *
 * @param kind sync, async or ssp
 * @param staleness the S of {@code ssp:S}; 0 for the others
 */
public record SyncMode(Kind kind, int staleness) implements Serializable {

    /** The ways workers agree. */
    public enum Kind {
        /** An all-reduce every step. */
        SYNC,
        /** Parameter servers, no bound on how far a worker runs ahead. */
        ASYNC,
        /** Parameter servers, a worker at most {@code staleness} steps ahead. */
        SSP
    }

    /** An all-reduce every step: the default. */
    public static final SyncMode SYNC = new SyncMode(Kind.SYNC, 0);

    /** Parameter servers without a bound. */
    public static final SyncMode ASYNC = new SyncMode(Kind.ASYNC, 0);

    /** Checks the bound: at least 0, and only with {@code ssp}. */
    public SyncMode {
        if (kind == null || staleness < 0 || kind != Kind.SSP && staleness != 0) {
            throw new IllegalArgumentException(kind + " with staleness " + staleness);
        }
    }

    /**
     * Reads a {@code --sync} value: {@code sync}, {@code async} or {@code ssp:S}.
     *
     * @param text the value, in lower case
     * @return the mode
     * @throws IllegalArgumentException for any other text
     */
    static SyncMode parse(String text) {
        if (text.matches("ssp:\\d{1,9}")) {
            return new SyncMode(Kind.SSP, Integer.parseInt(text.substring("ssp:".length())));
        }
        return switch (text) {
            case "sync" -> SYNC;
            case "async" -> ASYNC;
            default -> throw new IllegalArgumentException(text);
        };
    }

    /**
     * Tells whether the workers all-reduce every step, with no parameter servers.
     *
     * @return {@code true} for {@code sync}
     */
    public boolean isSync() {
        return kind == Kind.SYNC;
    }

    /** The value as a user types it: {@code sync}, {@code async} or {@code ssp:S}. */
    @Override
    public String toString() {
        return kind == Kind.SSP ? "ssp:" + staleness : kind.name().toLowerCase(Locale.ROOT);
    }
}
