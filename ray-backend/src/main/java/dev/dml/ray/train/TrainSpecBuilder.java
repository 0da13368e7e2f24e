package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * Builds a {@link TrainSpec}: {@code setX} are required, {@code optX} optional, {@code addX}
 * append. Each setter rejects a bad value at once; {@link #build()} names what is missing and
 * validates the table, so a bad column fails before any cluster or actor starts.
 */
public final class TrainSpecBuilder {

    // Package-private: TrainSpec and SpecResolution read the builder's state.

    Table table;
    ColumnSelection columns;
    ModelSpec modelSpec;
    ModelSpec.Family family;
    int[] hidden = new int[0];
    OptimizerSpec optimizer = OptimizerSpec.adam(1e-3f);
    float learningRate;
    int epochs;
    int batchSize = 64;
    long seed = 42;
    int workers = 1;
    boolean workersSet;
    Strategy strategy = Strategy.data();
    double cpusPerWorker = 1;
    double gpusPerWorker;
    String clusterAddress;
    double validationFraction;
    Table validationTable;
    Path checkpointDir;
    int checkpointEvery;
    boolean resume;
    int reportEvery = 10;
    final List<TrainingListener> listeners = new ArrayList<>();
    final List<String> workerJvmOptions = new ArrayList<>();
    String name = "train";

    TrainSpecBuilder() {}

    /**
     * Sets the data (required).
     *
     * @param table a Tablesaw table with the feature and label columns
     * @return this builder
     */
    public TrainSpecBuilder setTable(Table table) {
        if (table == null) {
            throw new DmlException("The table is null.", "Pass a Tablesaw Table to setTable.");
        }
        this.table = table;
        return this;
    }

    /**
     * Sets the feature and label columns (required).
     *
     * @param columns the selection; it must have a label
     * @return this builder
     */
    public TrainSpecBuilder setColumns(ColumnSelection columns) {
        if (columns == null || !columns.hasLabel()) {
            throw new DmlException("Training needs a label column; the selection has none.",
                    "Build the ColumnSelection with a label column.");
        }
        this.columns = columns;
        return this;
    }

    /**
     * Sets the model (required: this or {@link #setModel(ModelSpec.Family, int...)}).
     *
     * @param spec the model; its input width must equal the number of feature columns
     * @return this builder
     */
    public TrainSpecBuilder setModel(ModelSpec spec) {
        if (spec == null) {
            throw new DmlException("The model spec is null.", "Pass a ModelSpec to setModel.");
        }
        this.modelSpec = spec;
        this.family = null;
        return this;
    }

    /**
     * Sets the model by family and hidden sizes; inputs, classes and input standardisation
     * come from the table at {@link #build()}, and the init seed from {@link #optSeed}.
     *
     * @param family the family
     * @param hiddenSizes the hidden layer widths (an MLP needs at least one)
     * @return this builder
     */
    public TrainSpecBuilder setModel(ModelSpec.Family family, int... hiddenSizes) {
        if (family == null) {
            throw new DmlException("The model family is null.",
                    "Pass MLP, LOGISTIC_REGRESSION or CNN.");
        }
        for (int h : hiddenSizes) {
            if (h < 1) {
                throw new DmlException("Hidden layer sizes must be at least 1, got "
                        + Arrays.toString(hiddenSizes) + ".", "Pass positive sizes.");
            }
        }
        this.family = family;
        this.hidden = hiddenSizes.clone();
        this.modelSpec = null;
        return this;
    }

    /**
     * Sets the optimizer (default Adam, learning rate 0.001).
     *
     * @param spec the optimizer
     * @return this builder
     */
    public TrainSpecBuilder optOptimizer(OptimizerSpec spec) {
        if (spec == null) {
            throw new DmlException("The optimizer spec is null.",
                    "Pass OptimizerSpec.adam(lr) or OptimizerSpec.sgd(lr, momentum).");
        }
        this.optimizer = spec;
        return this;
    }

    /**
     * Overrides the optimizer's learning rate.
     *
     * @param lr a positive rate
     * @return this builder
     */
    public TrainSpecBuilder optLearningRate(float lr) {
        if (!(lr > 0) || Float.isInfinite(lr)) {
            throw new DmlException("The learning rate must be positive, got " + lr + ".",
                    "Pass a rate such as 0.001 to optLearningRate.");
        }
        this.learningRate = lr;
        return this;
    }

    /**
     * Sets the number of epochs (required).
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder setEpochs(int n) {
        if (n < 1) {
            throw new DmlException("epochs must be at least 1, got " + n + ".",
                    "Pass a positive count to setEpochs.");
        }
        this.epochs = n;
        return this;
    }

    /**
     * Sets the rows each worker trains on per step (default 64).
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder optBatchSize(int n) {
        if (n < 1) {
            throw new DmlException("The batch size must be at least 1, got " + n + ".",
                    "Pass a positive size to optBatchSize, such as 64.");
        }
        this.batchSize = n;
        return this;
    }

    /**
     * Sets the seed of the validation split and of a model set by family (default 42).
     *
     * @param s the seed
     * @return this builder
     */
    public TrainSpecBuilder optSeed(long s) {
        this.seed = s;
        return this;
    }

    /**
     * Sets the number of workers (default 1).
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder optWorkers(int n) {
        if (n < 1) {
            throw new DmlException("workers must be at least 1, got " + n + ".",
                    "Pass a positive count to optWorkers.");
        }
        this.workers = n;
        this.workersSet = true;
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
        if (s == null) {
            throw new DmlException("The strategy is null.",
                    "Pass Strategy.data(), model(k), pipeline(k, m, schedule) or hybrid(d, k, m).");
        }
        this.strategy = s;
        return this;
    }

    /**
     * Sets the CPUs Ray reserves per worker (default 1; 0 lets workers share CPUs).
     *
     * @param cpus 0 or more
     * @return this builder
     */
    public TrainSpecBuilder optCpusPerWorker(double cpus) {
        if (!(cpus >= 0) || Double.isInfinite(cpus)) {
            throw new DmlException("cpusPerWorker must be 0 or more, got " + cpus + ".",
                    "Pass a non-negative count to optCpusPerWorker.");
        }
        this.cpusPerWorker = cpus;
        return this;
    }

    /**
     * Sets the GPUs Ray reserves per worker (default 0). The job fails at once when the
     * cluster has fewer GPUs than {@code workers * gpus}.
     *
     * @param gpus 0 or more
     * @return this builder
     */
    public TrainSpecBuilder optGpusPerWorker(double gpus) {
        if (!(gpus >= 0) || Double.isInfinite(gpus)) {
            throw new DmlException("gpusPerWorker must be 0 or more, got " + gpus + ".",
                    "Pass a non-negative count to optGpusPerWorker.");
        }
        this.gpusPerWorker = gpus;
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
        if (hostPort == null || hostPort.isBlank()) {
            throw new DmlException("The cluster address is empty.",
                    "Pass host:port, or leave it unset for the embedded cluster.");
        }
        this.clusterAddress = hostPort.trim();
        return this;
    }

    /**
     * Holds out a random fraction of the rows (seeded) that rank 0 evaluates after each
     * epoch.
     *
     * @param fraction at least 0 and below 1
     * @return this builder
     */
    public TrainSpecBuilder optValidationFraction(double fraction) {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new DmlException("validationFraction must be in [0, 1), got " + fraction
                    + ".", "Pass a fraction such as 0.2 to optValidationFraction.");
        }
        this.validationFraction = fraction;
        return this;
    }

    /**
     * Validates on a table of its own after each epoch, instead of holding rows out.
     *
     * @param table rows with the same feature and label columns as the training table
     * @return this builder
     */
    public TrainSpecBuilder optValidationTable(Table table) {
        this.validationTable = java.util.Objects.requireNonNull(table, "validation table");
        return this;
    }

    /**
     * Makes rank 0 write a checkpoint every {@code everySteps} steps into {@code dir}, a
     * folder the driver and the workers can reach.
     *
     * @param dir the folder; created if missing
     * @param everySteps at least 1
     * @return this builder
     */
    public TrainSpecBuilder optCheckpoints(Path dir, int everySteps) {
        if (dir == null) {
            throw new DmlException("The checkpoint folder is null.",
                    "Pass a folder the workers can write to.");
        }
        if (everySteps < 1) {
            throw new DmlException("The checkpoint interval must be at least 1 step, got "
                    + everySteps + ".", "Pass a positive step count to optCheckpoints.");
        }
        this.checkpointDir = dir.toAbsolutePath().normalize();
        this.checkpointEvery = everySteps;
        return this;
    }

    /**
     * Continues from the newest good checkpoint in the checkpoint folder (a fresh start when
     * there is none). Needs {@link #optCheckpoints}.
     *
     * @param resume {@code true} to resume
     * @return this builder
     */
    public TrainSpecBuilder optResume(boolean resume) {
        this.resume = resume;
        return this;
    }

    /**
     * Sets how many steps run per driver call (default 10); metrics reach listeners after
     * each call, so a smaller value gives livelier progress at some cost.
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
    public TrainSpecBuilder addListener(TrainingListener listener) {
        if (listener == null) {
            throw new DmlException("The listener is null.", "Pass a TrainingListener.");
        }
        listeners.add(listener);
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
            throw new DmlException("'" + option + "' is not a JVM option.",
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
            throw new DmlException("'" + jobName + "' is not a valid job name.",
                    "Use letters, digits, '-', '_' or '.'.");
        }
        this.name = jobName;
        return this;
    }

    /**
     * Validates the table against the columns, resolves the model and splits the rows.
     *
     * @return the immutable spec
     * @throws DmlException naming every missing required value, or the first problem with
     *     the table
     */
    public TrainSpec build() {
        List<String> missing = new ArrayList<>();
        if (table == null) {
            missing.add("setTable");
        }
        if (columns == null) {
            missing.add("setColumns");
        }
        if (modelSpec == null && family == null) {
            missing.add("setModel");
        }
        if (epochs == 0) {
            missing.add("setEpochs");
        }
        if (!missing.isEmpty()) {
            throw new DmlException("The training spec is missing "
                    + String.join(", ", missing) + ".",
                    "Call " + String.join("(...), ", missing)
                            + "(...) on TrainSpec.builder() before build().");
        }
        if (resume && checkpointDir == null) {
            throw new DmlException("optResume(true) needs a checkpoint folder.",
                    "Call optCheckpoints(folder, everySteps) as well.");
        }
        return SpecResolution.resolve(this);
    }
}
