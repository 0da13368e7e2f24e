package dev.dml.options;

/** The optimizer of {@code --optimizer}. */
public enum OptimizerKind implements Choice {
    /** Adam (AdamW with a weight decay). */
    ADAM,
    /** Stochastic gradient descent with (optional) momentum. */
    SGD;

    @Override
    public String toString() {
        return word();
    }
}
