package dev.dml.options;

/** How a job's workers are placed on the cluster's nodes ({@code --placement}). */
public enum Placement implements Choice {
    /** On as few nodes as hold them. */
    PACK,
    /** On as many nodes as there are. */
    SPREAD;

    @Override
    public String toString() {
        return word();
    }
}
