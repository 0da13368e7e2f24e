package dev.dml.ray.train;

import dev.dml.events.ProgressListener;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.settings.FileInput;
import dev.dml.ray.train.settings.Strategy;
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
 *         .optEpochs(5)
 *         .optWorkers(2).optBatchSize(256).optOptimizer(OptimizerSpec.adam(2e-3f))
 *         .optValidationFraction(0.2).addListener(myPlot)
 *         .build();
 * TrainResult result = Dml.train(spec);
 * }</pre>
 *
 * <p>Every option of {@code %dml train} is read with {@link #get(Option)}; the typed getters
 * are shortcuts for the common ones.
 *
 * <p>Each worker trains on its own shard of the training rows. With {@code --shuffle} (on by
 * default) the rows are dealt to the shards in a seeded order and each shard is read in a new
 * seeded order every epoch ({@link dev.dml.ray.data.RowOrder}); without it a shard is a
 * contiguous range of rows, read in the table's order. Step {@code t} of an epoch uses rows
 * {@code [t*B, (t+1)*B)} of each shard's reading order, and an epoch has {@code floor(smallest
 * shard / B)} steps on every rank (the few rows past that wait for another epoch's order).
 */
public final class TrainSpec extends ResolvedOptions {

    private final Table table;
    private final Table trainTable;
    private final Table validationTable;
    private final ColumnSelection columns;
    private final ModelSpec model;
    private final OptimizerSpec optimizer;
    private final Strategy strategy;
    private final int workers;
    private final String clusterAddress;
    private final double validationFraction;
    private final int reportEvery;
    private final List<ProgressListener> listeners;
    private final List<String> workerJvmOptions;
    private final String name;
    private final int stepsPerEpoch;
    private final List<String> notices;
    private final TrainSpecBuilder source;
    private final FileInput files;

    TrainSpec(TrainSpecBuilder b, OptionValues options, ColumnSelection columns,
            Strategy strategy, OptimizerSpec optimizer, int workers, Table train,
            Table validation, ModelSpec model, int stepsPerEpoch, List<String> notices,
            FileInput files) {
        super(options);
        this.table = b.table;
        this.trainTable = train;
        this.validationTable = validation;
        this.columns = columns;
        this.model = model;
        this.optimizer = optimizer;
        this.strategy = strategy;
        this.workers = workers;
        this.clusterAddress = b.clusterAddress;
        this.validationFraction = b.validationFraction;
        this.reportEvery = b.reportEvery;
        this.listeners = List.copyOf(b.listeners);
        this.workerJvmOptions = List.copyOf(b.workerJvmOptions);
        this.name = b.name;
        this.stepsPerEpoch = stepsPerEpoch;
        this.notices = List.copyOf(notices);
        this.source = SpecResolution.copy(b);
        this.files = files;
    }

    /**
     * Returns a builder with the settings this spec was built from, to build a variant of it:
     * {@code spec.toBuilder().optWorkers(4).build()}.
     *
     * @return a new builder; changing it leaves this spec as it is
     */
    public TrainSpecBuilder toBuilder() {
        return SpecResolution.copy(source);
    }

    /**
     * Returns this job cut short to measure its step time, as {@code %dml plan} probes it: the
     * same data, model and options on {@code workers} workers, for one epoch of at most {@code
     * steps} steps, without checkpoints, {@code --resume}, budget or deadline.
     *
     * @param workers the workers
     * @param steps the steps
     * @return the probe's spec
     */
    public TrainSpec probe(int workers, int steps) {
        return SpecResolution.probe(this, workers, steps);
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
     * @return the table; null when the workers read files ({@link #files()})
     */
    public Table table() {
        return table;
    }

    /**
     * Returns the rows the workers train on.
     *
     * @return the training rows; null when the workers read files ({@link #files()})
     */
    public Table trainTable() {
        return trainTable;
    }

    /**
     * Returns the number of training rows, of the table or of the worker-read files.
     *
     * @return the rows
     */
    public long trainRows() {
        return files != null ? files.rows() : trainTable.rowCount();
    }

    /**
     * Returns the files the workers read, when the job was given files rather than a table.
     *
     * @return the files, or empty for a table
     */
    public Optional<dev.dml.ray.data.DataFiles> files() {
        return Optional.ofNullable(files).map(FileInput::files);
    }

    /** The worker-read input, or null for a table. */
    public FileInput fileInput() {
        return files;
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
     * Returns the feature and label columns, with the class names learnt on the table when the
     * label holds text, and the categories of text features learnt on the training rows.
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
     * Returns the number of workers (Ray actors, each its own JVM on a cluster).
     *
     * @return at least 1
     */
    public int workers() {
        return workers;
    }

    /**
     * Returns the fewest workers an elastic job runs with ({@code --workers MIN:MAX}); {@link
     * #workers()} otherwise.
     *
     * @return at least 1, at most {@link #workers()}
     */
    public int minWorkers() {
        return strategy instanceof Strategy.Staged ? workers
                : options.get(TrainOptions.WORKERS).min();
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
    public List<ProgressListener> listeners() {
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

    /**
     * Returns what the job tells the cell when it starts, about choices made for the user: a
     * table with fewer rows per worker than {@code --batch-size} trains with smaller batches.
     * Options are named as {@code {batch-size}} templates ({@link dev.dml.events.JobNotice}).
     *
     * @return the lines, often none
     */
    public List<String> notices() {
        return notices;
    }
}
