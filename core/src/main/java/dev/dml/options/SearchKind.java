package dev.dml.options;

/** How {@code %dml tune} draws configurations from its space ({@code --search}). */
public enum SearchKind implements Choice {
    /** Every combination of the listed values. */
    GRID,
    /** Samples of the space. */
    RANDOM;

    @Override
    public String toString() {
        return word();
    }
}
