package dev.dml.options;

/** The epoch metric a sweep ranks and stops its trials by ({@code --metric}). */
public enum TrialMetric implements Choice {
    /** Validation accuracy; higher is better. */
    VAL_ACCURACY,
    /** Validation loss; lower is better. */
    VAL_LOSS,
    /** Training loss; lower is better. */
    TRAIN_LOSS;

    @Override
    public String toString() {
        return word();
    }
}
