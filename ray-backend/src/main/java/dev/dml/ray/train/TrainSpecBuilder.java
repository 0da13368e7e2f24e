package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.events.ProgressListener;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.setters.GenerateSetters;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.BlockFactory;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.UserBlock;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.settings.Strategy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tech.tablesaw.api.Table;

/**
 * Builds a {@link TrainSpec}: {@code setX} are required, {@code optX} optional, {@code addX}
 * append. Every option of {@code %dml train} that the spec takes can be set with {@link
 * #opt(Option, Object)}; the {@code optX} methods are typed shortcuts for the same {@link
 * TrainOptions}, whose declarations hold the defaults. Each value is checked at once; {@link
 * #build()} names what is missing and validates the table, so a bad column fails before any
 * cluster or actor starts. How the model trains (epochs, batches, row order, the learning rate and
 * its schedule, weight decay, clipping, compression, early stopping) is set with the methods
 * of {@link TrainingSettings} and of {@code TrainSetters}, the setters derived from the
 * declarations' Java words ({@code .java("optBatchSize")}).
 */
@GenerateSetters(catalogue = TrainOptions.class, name = "TrainSetters")
public final class TrainSpecBuilder extends TrainingSettings
        implements TrainSetters {

    // Package-private: SpecResolution reads the builder's state.

    Table table;
    dev.dml.ray.data.DataFiles files;
    /** A location opened at {@link #build()}, once {@link #optS3Endpoint} may be known. */
    String filesLocation;
    String s3Endpoint;
    ColumnSelection columns;
    /** The label and features (null: every other column) whose selection build() infers. */
    String label;
    List<String> features;
    OptionValues options = OptionValues.empty();
    /** Richer than the options allow, each set by its own method; null when not given. */
    ModelSpec modelSpec;
    UserBlock block;
    OptimizerSpec optimizer;
    Strategy strategy;
    String clusterAddress;
    double validationFraction;
    Table validationTable;
    int reportEvery = 10;
    final List<ProgressListener> listeners = new ArrayList<>();
    final List<String> workerJvmOptions = new ArrayList<>();
    String name = "train";

    TrainSpecBuilder() {}

    /**
     * Sets an option of {@link TrainOptions}, as {@code %dml train --name value} does.
     *
     * @param option an option the spec takes ({@link Option.Target#SPEC})
     * @param value its value, checked now
     * @param <T> the value's type
     * @return this builder
     */
    @Override
    public <T> TrainSpecBuilder opt(Option<T> option, T value) {
        if (option.target() != Option.Target.SPEC) {
            throw new DmlException(option.flag() + " is resolved by the notebook, not by the"
                    + " training spec.", "Use " + option.javaTerm() + " instead.");
        }
        options = options.with(option, value);
        return this;
    }

    /**
     * Sets the data (required).
     *
     * @param t a Tablesaw table with the feature and label columns
     * @return this builder
     */
    public TrainSpecBuilder setTable(Table t) {
        this.table = required(t, "table", "Pass a Tablesaw Table to setTable.");
        return this;
    }

    /**
     * Trains on files the workers read themselves instead of a table ({@code --read-on-workers};
     * docs/data-files.md): Parquet or Arrow IPC files, a folder of them, a {@code file://}
     * URL every node reaches, or an {@code s3://bucket/key} or {@code s3://bucket/prefix/} URL
     * (with {@link #optS3Endpoint} for an S3-compatible store). Each worker reads only its own
     * row groups, through its node's cache; the kernel scans the files one row group at a time
     * and never holds the table. The files are opened (their footers read) at {@link #build()}.
     *
     * @param location a file, a folder, a {@code file://} URL or an {@code s3://} URL
     * @return this builder
     */
    public TrainSpecBuilder setFiles(String location) {
        this.filesLocation = required(location, "file location",
                "Pass a path, a file:// URL or an s3:// URL to setFiles.");
        this.files = null;
        return this;
    }

    /**
     * Reads {@code s3://} files from an S3-compatible store ({@code --s3-endpoint}): MinIO,
     * Ceph, Cloudflare R2, GCS's XML API. Without it, {@code AWS_ENDPOINT_URL_S3} or {@code
     * AWS_ENDPOINT_URL} name the store, else AWS itself; credentials come from the AWS default
     * chain either way.
     *
     * @param endpoint the store's URL, such as {@code http://minio.local:9000}
     * @return this builder
     */
    public TrainSpecBuilder optS3Endpoint(String endpoint) {
        dev.dml.ray.data.store.DataStore.requireS3Endpoint(required(endpoint, "S3 endpoint",
                "Pass the store's URL, such as http://minio.local:9000."));
        this.s3Endpoint = endpoint.strip();
        if (filesLocation != null) {
            this.files = null; // opened again at build, at this endpoint
        }
        return this;
    }

    /**
     * Trains on files the workers read themselves, already opened ({@link #setFiles(String)}).
     *
     * @param dataFiles the files
     * @return this builder
     */
    public TrainSpecBuilder setFiles(dev.dml.ray.data.DataFiles dataFiles) {
        this.files = required(dataFiles, "data files", "Pass DataFiles.open(location).");
        this.filesLocation = null;
        return this;
    }

    /**
     * Sets the feature and label columns (required).
     *
     * @param selection the selection; it must have a label
     * @return this builder
     */
    public TrainSpecBuilder setColumns(ColumnSelection selection) {
        if (selection == null || !selection.hasLabel()) {
            throw new DmlException("Training needs a label column; the selection has none.",
                    "Build the ColumnSelection with a label column.");
        }
        this.columns = selection;
        this.label = null;
        return this;
    }

    /**
     * Sets the label column and the features, as {@code --label} and {@code --features} do;
     * {@link #build()} tells the label's kind from its values ({@link
     * dev.dml.ray.data.LabelInference}), in the table or in the files' first row group.
     *
     * @param labelColumn the label column
     * @param featureColumns the feature columns, or null for every other column
     * @return this builder
     */
    public TrainSpecBuilder setColumns(String labelColumn, List<String> featureColumns) {
        this.label = required(labelColumn, "label", "Pass the label column's name.");
        this.features = featureColumns == null ? null : List.copyOf(featureColumns);
        this.columns = null;
        return this;
    }

    /**
     * Sets the model (required: this or {@link #setModel(ModelSpec.Family, int...)}).
     *
     * @param spec the model; its input width must equal the number of feature columns
     * @return this builder
     */
    public TrainSpecBuilder setModel(ModelSpec spec) {
        this.modelSpec = required(spec, "model spec", "Pass a ModelSpec to setModel.");
        this.block = null;
        return this;
    }

    /**
     * Trains a user's own DJL block ({@code --block VAR}); inputs, outputs and the features'
     * standardisation come from the table at {@link #build()}.
     *
     * @param name what messages call it
     * @param factory the factory; its class on dml's class path
     * @return this builder
     */
    public TrainSpecBuilder setBlock(String name, BlockFactory factory) {
        required(factory, "block factory", "Pass a BlockFactory to setBlock.");
        return setBlock(UserBlock.of(name, factory, Map.of()));
    }

    /**
     * As {@link #setBlock(String, BlockFactory)}, with a captured factory (a cell's class).
     *
     * @param captured from {@link UserBlock#of}
     * @return this builder
     */
    public TrainSpecBuilder setBlock(UserBlock captured) {
        this.block = required(captured, "block", "Pass UserBlock.of(name, factory, classes).");
        this.modelSpec = null;
        return this;
    }

    /**
     * Sets the model by family and hidden sizes ({@code --model}, {@code --hidden}); inputs,
     * classes and input standardisation come from the table at {@link #build()}, and the init
     * seed from {@link #optSeed}.
     *
     * @param family the family
     * @param hiddenSizes the hidden layer widths; none gives the family's default
     * @return this builder
     */
    public TrainSpecBuilder setModel(ModelSpec.Family family, int... hiddenSizes) {
        required(family, "model family", "Pass MLP, LOGISTIC_REGRESSION, CNN or MF.");
        if (family == ModelSpec.Family.CUSTOM) {
            throw new DmlException("A custom model is trained from its factory.",
                    "Call setBlock(name, factory) instead of setModel.");
        }
        opt(TrainOptions.MODEL, family.option());
        if (hiddenSizes.length > 0) {
            opt(TrainOptions.HIDDEN, Arrays.stream(hiddenSizes).boxed().toList());
        } else {
            // the family's default, not the sizes an earlier call gave another family
            options = options.without(TrainOptions.HIDDEN);
        }
        this.modelSpec = null;
        this.block = null;
        return this;
    }

    /**
     * Sets the optimizer, with its hyper-parameters ({@code --optimizer}, {@code --lr}).
     *
     * @param spec the optimizer
     * @return this builder
     */
    public TrainSpecBuilder optOptimizer(OptimizerSpec spec) {
        this.optimizer = required(spec, "optimizer spec",
                "Pass OptimizerSpec.adam(lr) or OptimizerSpec.sgd(lr, momentum).");
        return this;
    }

    /**
     * Sets how the job spreads the model and the data (default {@link Strategy#data()}). A
     * staged strategy runs {@code replicas * stages} workers, so {@link #optWorkers} may be left
     * out; {@link #optBatchSize} is then the batch of each replica, cut into micro-batches.
     *
     * @param s the strategy
     * @return this builder
     */
    public TrainSpecBuilder optStrategy(Strategy s) {
        this.strategy = required(s, "strategy",
                "Pass Strategy.data(), model(k), pipeline(k, m, schedule) or hybrid(d, k, m).");
        return this;
    }

    /**
     * Uses an existing cluster instead of the embedded default ({@link dev.dml.ray.Dml}
     * methods that open their own cluster).
     *
     * @param hostPort the GCS address {@code host:port}
     * @return this builder
     */
    public TrainSpecBuilder optClusterAddress(String hostPort) {
        this.clusterAddress = TrainOptions.CLUSTER.check(hostPort).strip();
        return this;
    }

    /**
     * Holds out a random fraction of the rows (seeded) that are evaluated after each epoch.
     *
     * @param fraction at least 0 and below 1
     * @return this builder
     */
    public TrainSpecBuilder optValidationFraction(double fraction) {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new DmlException("{validation} must be a fraction in [0, 1), got " + fraction
                    + ".", "For example {validation=0.2}.");
        }
        this.validationFraction = fraction;
        return this;
    }

    /**
     * Validates on a table of its own after each epoch, instead of holding rows out.
     *
     * @param t rows with the same feature and label columns as the training table
     * @return this builder
     */
    public TrainSpecBuilder optValidationTable(Table t) {
        this.validationTable = Objects.requireNonNull(t, "validation table");
        return this;
    }

    /**
     * Writes a checkpoint every {@code everySteps} steps into {@code dir}, on the machine that
     * runs the job's driver ({@code --checkpoint-dir}, {@code --checkpoint-every}).
     *
     * @param dir the folder; created if missing
     * @param everySteps at least 1
     * @return this builder
     */
    public TrainSpecBuilder optCheckpoints(Path dir, int everySteps) {
        required(dir, "checkpoint folder", "Pass a folder for the checkpoints.");
        opt(TrainOptions.CHECKPOINT_DIR, dir.toAbsolutePath().normalize().toString());
        return optCheckpointEvery(everySteps);
    }

    /**
     * Sets how many steps run per driver call (default 10); metrics reach listeners after
     * each call, so a smaller value gives livelier progress at some cost. Workers take their
     * in-memory snapshots for recovery as often.
     *
     * @param steps at least 1
     * @return this builder
     */
    public TrainSpecBuilder optReportEvery(int steps) {
        if (steps < 1) {
            throw new DmlException("reportEvery must be at least 1 step, got " + steps + ".",
                    "Pass a positive count to optReportEvery.");
        }
        this.reportEvery = steps;
        return this;
    }

    /**
     * Adds a listener that receives the job's progress in this JVM.
     *
     * @param listener the listener
     * @return this builder
     */
    public TrainSpecBuilder addListener(ProgressListener listener) {
        listeners.add(required(listener, "listener",
                "Pass a ProgressListener (or a TrainingListener)."));
        return this;
    }

    /**
     * Adds an option to each worker's JVM, such as {@code -Xmx2g}.
     *
     * @param option one JVM option
     * @return this builder
     */
    public TrainSpecBuilder addWorkerJvmOption(String option) {
        if (option == null || !option.startsWith("-")) {
            throw new DmlException("'" + DmlException.literal(option) + "' is not a JVM option.",
                    "Pass one option that starts with '-', such as -Xmx2g.");
        }
        workerJvmOptions.add(option);
        return this;
    }

    /**
     * Names the job (default {@code train}); it names the workers' memory pools and logs.
     *
     * @param jobName letters, digits, '-', '_' or '.'
     * @return this builder
     */
    public TrainSpecBuilder optName(String jobName) {
        if (jobName == null || !jobName.matches("[A-Za-z0-9_.-]+")) {
            throw new DmlException("'" + DmlException.literal(jobName)
                    + "' is not a valid job name.", "Use letters, digits, '-', '_' or '.'.");
        }
        this.name = jobName;
        return this;
    }

    /**
     * Validates the table against the columns, resolves the model, the optimizer and the
     * strategy, and splits the rows.
     *
     * @return the immutable spec
     * @throws DmlException naming every missing required value, or the first problem with
     *     the table or the options
     */
    public TrainSpec build() {
        SpecResolution.requireData(this);
        return SpecResolution.resolve(this);
    }

    private static <T> T required(T value, String what, String hint) {
        if (value == null) {
            throw new DmlException("The " + what + " is null.", hint);
        }
        return value;
    }
}
