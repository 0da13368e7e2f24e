package dev.dml.ray.train;

import dev.dml.ray.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.TableValidator;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import tech.tablesaw.api.Table;

/**
 * Everything a training job needs: the data, the model, the optimizer, how long, on how many
 * workers, and where to checkpoint. Immutable; built in the kernel, where {@link Builder#build()}
 * validates the table, so a bad column fails before any cluster or actor starts.
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

    private TrainSpec(Builder b, Table train, Table validation, ModelSpec model,
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
        this.workers = b.workers;
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
    public static Builder builder() {
        return new Builder();
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
     * Returns the steps every worker runs per epoch: {@code floor(smallest shard / batch)}.
     *
     * @return steps per epoch
     */
    public int stepsPerEpoch() {
        return stepsPerEpoch;
    }

    /** Builds a {@link TrainSpec}: {@code setX} are required, {@code optX} optional. */
    public static final class Builder {

        private Table table;
        private ColumnSelection columns;
        private ModelSpec modelSpec;
        private ModelSpec.Family family;
        private int[] hidden = new int[0];
        private OptimizerSpec optimizer = OptimizerSpec.adam(1e-3f);
        private float learningRate;
        private int epochs;
        private int batchSize = 64;
        private long seed = 42;
        private int workers = 1;
        private double cpusPerWorker = 1;
        private double gpusPerWorker;
        private String clusterAddress;
        private double validationFraction;
        private Path checkpointDir;
        private int checkpointEvery;
        private boolean resume;
        private int reportEvery = 10;
        private final List<TrainingListener> listeners = new ArrayList<>();
        private final List<String> workerJvmOptions = new ArrayList<>();
        private String name = "train";

        private Builder() {}

        /**
         * Sets the data (required).
         *
         * @param table a Tablesaw table with the feature and label columns
         * @return this builder
         */
        public Builder setTable(Table table) {
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
        public Builder setColumns(ColumnSelection columns) {
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
        public Builder setModel(ModelSpec spec) {
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
        public Builder setModel(ModelSpec.Family family, int... hiddenSizes) {
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
        public Builder optOptimizer(OptimizerSpec spec) {
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
        public Builder optLearningRate(float lr) {
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
        public Builder setEpochs(int n) {
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
        public Builder optBatchSize(int n) {
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
        public Builder optSeed(long s) {
            this.seed = s;
            return this;
        }

        /**
         * Sets the number of workers (default 1).
         *
         * @param n at least 1
         * @return this builder
         */
        public Builder optWorkers(int n) {
            if (n < 1) {
                throw new DmlException("workers must be at least 1, got " + n + ".",
                        "Pass a positive count to optWorkers.");
            }
            this.workers = n;
            return this;
        }

        /**
         * Sets the CPUs Ray reserves per worker (default 1; 0 lets workers share CPUs).
         *
         * @param cpus 0 or more
         * @return this builder
         */
        public Builder optCpusPerWorker(double cpus) {
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
        public Builder optGpusPerWorker(double gpus) {
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
        public Builder optClusterAddress(String hostPort) {
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
        public Builder optValidationFraction(double fraction) {
            if (!(fraction >= 0 && fraction < 1)) {
                throw new DmlException("validationFraction must be in [0, 1), got " + fraction
                        + ".", "Pass a fraction such as 0.2 to optValidationFraction.");
            }
            this.validationFraction = fraction;
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
        public Builder optCheckpoints(Path dir, int everySteps) {
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
        public Builder optResume(boolean resume) {
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
        public Builder optReportEvery(int steps) {
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
        public Builder addListener(TrainingListener listener) {
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
        public Builder addWorkerJvmOption(String option) {
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
        public Builder optName(String jobName) {
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
                        "Call TrainSpec.Builder." + String.join("(...), ", missing)
                                + "(...) before build().");
            }
            if (resume && checkpointDir == null) {
                throw new DmlException("optResume(true) needs a checkpoint folder.",
                        "Call optCheckpoints(folder, everySteps) as well.");
            }
            int classes = TableValidator.validate(table, columns);
            Table train = table;
            Table validation = null;
            if (validationFraction > 0) {
                int rows = table.rowCount();
                int held = (int) Math.max(1, Math.round(rows * validationFraction));
                if (held >= rows) {
                    throw new DmlException("A validation fraction of " + validationFraction
                            + " leaves no training rows of " + rows + ".",
                            "Pass a smaller fraction to optValidationFraction.");
                }
                int[] perm = permutation(rows, seed);
                int[] val = Arrays.copyOf(perm, held);
                int[] tr = Arrays.copyOfRange(perm, held, rows);
                Arrays.sort(val);
                Arrays.sort(tr);
                validation = table.rows(val);
                train = table.rows(tr);
            }
            int smallest = train.rowCount() / workers;
            int steps = smallest / batchSize;
            if (steps < 1) {
                throw new DmlException("Each of the " + workers + " workers gets " + smallest
                        + " training rows, fewer than the batch size " + batchSize + ".",
                        "Lower optBatchSize or optWorkers, or train on more rows.");
            }
            ModelSpec resolved = resolveModel(train, classes);
            return new TrainSpec(this, train, validation, resolved, steps);
        }

        private ModelSpec resolveModel(Table train, int classes) {
            int features = columns.featureCount();
            boolean isClasses = columns.labelKind() == LabelKind.CLASSES;
            if (modelSpec != null) {
                if (modelSpec.inputs() != features) {
                    throw new DmlException("The model takes " + modelSpec.inputs()
                            + " inputs, but " + features + " feature columns are selected.",
                            "Build the ModelSpec with setInputs(" + features
                                    + "), or select matching columns.");
                }
                if (isClasses && modelSpec.outputs() > 1 && modelSpec.outputs() < classes) {
                    throw new DmlException("The model has " + modelSpec.outputs()
                            + " outputs, but the label has " + classes + " classes.",
                            "Build the ModelSpec with setOutputs(" + classes + ").");
                }
                return modelSpec;
            }
            ModelSpec.Builder b = ModelSpec.builder(family).optSeed(seed);
            if (family != ModelSpec.Family.CNN) {
                b.setInputs(features).optStandardize(FeatureStats.of(train, columns));
            } else if (features != 28 * 28) {
                throw new DmlException("A CNN family model takes 28x28 images (784 features), got "
                        + features + " feature columns.",
                        "Pass a ModelSpec built with optImage(c, h, w) to setModel.");
            }
            b.setOutputs(isClasses ? Math.max(2, classes) : 1);
            for (int h : hidden) {
                b.addHidden(h);
            }
            return b.build();
        }

        private static int[] permutation(int n, long seed) {
            int[] p = new int[n];
            for (int i = 0; i < n; i++) {
                p[i] = i;
            }
            Random rnd = new Random(seed);
            for (int i = n - 1; i > 0; i--) {
                int j = rnd.nextInt(i + 1);
                int t = p[i];
                p[i] = p[j];
                p[j] = t;
            }
            return p;
        }
    }
}
