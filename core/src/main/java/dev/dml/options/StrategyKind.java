package dev.dml.options;

/** How a job splits the model and the data over its workers ({@code --strategy}). */
public enum StrategyKind implements Choice {
    /** Every worker a whole replica of the model, training on its shard. */
    DATA,
    /** Stages run one micro-batch (the whole batch) in turn. */
    MODEL,
    /** Stages work on several micro-batches at once. */
    PIPELINE,
    /** Data-parallel replicas of a pipeline. */
    HYBRID;

    @Override
    public String toString() {
        return word();
    }
}
