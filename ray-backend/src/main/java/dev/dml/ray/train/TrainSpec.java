package dev.dml.ray.train;

import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import tech.tablesaw.api.Table;

/**
 * Everything a training job needs: the data, the model, the optimizer, how long, on how many
 * workers, and where to checkpoint. Immutable; built in the kernel, where
 * {@link TrainSpecBuilder#build()} validates the table, so a bad column fails before any
 * cluster or actor starts.
 *
 * <pre>{@code
 * TrainSpec spec = TrainSpec.builder()
 *         .setTable(fraud).setColumns(SyntheticFraud.selection())
 *         .setModel(ModelSpec.Family.MLP, 64, 32)   // inputs and classes come from the table
 *         .setEpochs(5)
 *         .optWorkers(2).optBatchSize(256).optOptimizer(OptimizerSpec.adam(2e-3f))
 *         .optValidationFraction(0.2).addListener(myPlot)
 *         .build();
 * TrainResult result = Dml.train(spec);
 * }</pre>
 *
 * <p>Each worker trains on a contiguous shard of the training rows; step {@code t} of every
 * epoch uses rows {@code [t*B, (t+1)*B)} of each shard, and an epoch has {@code floor(smallest
 * shard / B)} steps on every rank (the few rows past that are not used). Rows are not shuffled.
 */
public final class TrainSpec {

    private final Table table;
    private final Table trainTable;
    private final Table validationTable;
    private final ColumnSelection columns;
    private final ModelSpec model;
    private final OptimizerSpec optimizer;
    private final int epochs;
    private final int batchSize;
    private final long seed;
    private final int workers;
    private final double cpusPerWorker;
    private final double gpusPerWorker;
    private final String clusterAddress;
    private final double validationFraction;
    private final Path checkpointDir;
    private final int checkpointEvery;
    private final boolean resume;
    private final int reportEvery;
    private final List<TrainingListener> listeners;
    private final List<String> workerJvmOptions;
    private final String name;
    private final int stepsPerEpoch;
    private final Strategy strategy;

    TrainSpec(TrainSpecBuilder b, Table train, Table validation, ModelSpec model,
            int stepsPerEpoch) {
        this.table = b.table;
        this.trainTable = train;
        this.validationTable = validation;
        this.columns = b.columns;
        this.model = model;
        this.optimizer = b.learningRate > 0 ? b.optimizer.withLearningRate(b.learningRate)
                : b.optimizer;
        this.epochs = b.epochs;
        this.batchSize = b.batchSize;
        this.seed = b.seed;
        this.strategy = b.strategy;
        this.workers = SpecResolution.actors(b);
        this.cpusPerWorker = b.cpusPerWorker;
        this.gpusPerWorker = b.gpusPerWorker;
        this.clusterAddress = b.clusterAddress;
        this.validationFraction = b.validationFraction;
        this.checkpointDir = b.checkpointDir;
        this.checkpointEvery = b.checkpointEvery;
        this.resume = b.resume;
        this.reportEvery = b.reportEvery;
        this.listeners = List.copyOf(b.listeners);
        this.workerJvmOptions = List.copyOf(b.workerJvmOptions);
        this.name = b.name;
        this.stepsPerEpoch = stepsPerEpoch;
    }

    /**
     * Starts a spec.
     *
     * @return a builder
     */
    public static TrainSpecBuilder builder() {
        return new TrainSpecBuilder();
    }

    /**
     * Returns the whole table, before the validation split.
     *
     * @return the table
     */
    public Table table() {
        return table;
    }

    /**
     * Returns the rows the workers train on.
     *
     * @return the training rows
     */
    public Table trainTable() {
        return trainTable;
    }

    /**
     * Returns the held-out rows rank 0 evaluates after each epoch.
     *
     * @return the validation rows, if a fraction was set
     */
    public Optional<Table> validationTable() {
        return Optional.ofNullable(validationTable);
    }

    /**
     * Returns the feature and label columns.
     *
     * @return the selection
     */
    public ColumnSelection columns() {
        return columns;
    }

    /**
     * Returns the model, resolved against the table.
     *
     * @return the model spec
     */
    public ModelSpec model() {
        return model;
    }

    /**
     * Returns the optimizer.
     *
     * @return the optimizer spec
     */
    public OptimizerSpec optimizer() {
        return optimizer;
    }

    /**
     * Returns the number of epochs.
     *
     * @return at least 1
     */
    public int epochs() {
        return epochs;
    }

    /**
     * Returns the batch size of each worker; the global batch is this times {@link #workers()}.
     *
     * @return rows per worker per step
     */
    public int batchSize() {
        return batchSize;
    }

    /**
     * Returns the seed of the validation split and of a model built from a family.
     *
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * Returns the number of workers (Ray actors, each its own JVM on a cluster).
     *
     * @return at least 1
     */
    public int workers() {
        return workers;
    }

    /**
     * Returns the CPUs Ray reserves for each worker.
     *
     * @return CPUs, 0 or more
     */
    public double cpusPerWorker() {
        return cpusPerWorker;
    }

    /**
     * Returns the GPUs Ray reserves for each worker.
     *
     * @return GPUs, 0 or more
     */
    public double gpusPerWorker() {
        return gpusPerWorker;
    }

    /**
     * Returns the cluster address, if set; else {@link dev.dml.ray.Dml} uses the embedded
     * default (or {@code RAY_ADDRESS}).
     *
     * @return {@code host:port}
     */
    public Optional<String> clusterAddress() {
        return Optional.ofNullable(clusterAddress);
    }

    /**
     * Returns the fraction of rows held out for validation.
     *
     * @return 0 (none) to below 1
     */
    public double validationFraction() {
        return validationFraction;
    }

    /**
     * Returns the checkpoint folder, if set.
     *
     * @return the folder
     */
    public Optional<Path> checkpointDir() {
        return Optional.ofNullable(checkpointDir);
    }

    /**
     * Returns the checkpoint interval.
     *
     * @return steps between checkpoints, 0 without checkpoints
     */
    public int checkpointEvery() {
        return checkpointEvery;
    }

    /**
     * Tells whether the job continues from the newest good checkpoint.
     *
     * @return {@code true} to resume
     */
    public boolean resume() {
        return resume;
    }

    /**
     * Returns how many steps the workers run per driver call: their metrics reach the
     * listeners after each such call.
     *
     * @return steps per report
     */
    public int reportEvery() {
        return reportEvery;
    }

    /**
     * Returns the listeners.
     *
     * @return the listeners, in order
     */
    public List<TrainingListener> listeners() {
        return listeners;
    }

    /**
     * Returns the extra JVM options of the workers.
     *
     * @return the options
     */
    public List<String> workerJvmOptions() {
        return workerJvmOptions;
    }

    /**
     * Returns the job's name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Returns how the job spreads the model and the data. With a {@link Strategy.Staged}
     * strategy, {@link #workers()} is {@code replicas * stages}, each replica trains on its own
     * shard, and {@link #batchSize()} rows per replica make one step.
     *
     * @return the strategy, {@link Strategy#data()} by default
     */
    public Strategy strategy() {
        return strategy;
    }

    /**
     * Returns the steps every worker runs per epoch: {@code floor(smallest shard / batch)}.
     *
     * @return steps per epoch
     */
    public int stepsPerEpoch() {
        return stepsPerEpoch;
    }
}
