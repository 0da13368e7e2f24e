package dev.dml.options;

import java.util.List;

/**
 * The options of {@code %dml predict}, each declared once. {@code %dml predict} also takes
 * {@link TrainOptions#CLUSTER} and {@link TrainOptions#DEBUG} as {@code %dml train} does; in
 * Java, {@code Dml.predict(model)} takes them.
 */
public final class PredictOptions {

    private PredictOptions() {}

    /** Worker actors that score the table, one contiguous shard each. */
    public static final Option<Integer> WORKERS = Declaration.spec("workers", ValueType.count(),
            "N", "worker actors, each its own JVM scoring one contiguous shard of the rows")
            .example("2").fixed(1).java("optWorkers").done();

    /** Rows each worker scores in one forward pass. */
    public static final Option<Integer> BATCH_SIZE = Declaration.spec("batch-size",
            ValueType.count(), "B", "rows each worker scores in one forward pass").example("1024")
            .fixed(4096).java("optBatchSize").done();

    /** CPUs each worker reserves. */
    public static final Option<Double> CPUS_PER_WORKER = Declaration.spec("cpus-per-worker",
            ValueType.nonNegative(), "C", "CPUs each worker reserves (0 lets workers share)")
            .example("2").fixed(1.0).java("optCpusPerWorker").done();

    /** The notebook variable the scored table is bound to. */
    public static final Option<String> INTO = Declaration.kernel("into",
            ValueType.variableName(), "NAME", "bind the scored table (the input's columns and"
            + " the predictions) to this variable").example("scored").fixed("scored").done();

    /** Every option {@code %dml predict} has of its own, in the order help lists them. */
    public static final List<Option<?>> ALL = List.of(WORKERS, BATCH_SIZE, CPUS_PER_WORKER,
            INTO);

    /** Every option {@code %dml predict} takes: its own, the cluster and debug. */
    public static final List<Option<?>> ACCEPTED = List.of(WORKERS, BATCH_SIZE,
            CPUS_PER_WORKER, INTO, TrainOptions.CLUSTER, TrainOptions.DEBUG);
}
