package dev.dml.ray.predict;

import dev.dml.Checks;
import dev.dml.DmlException;
import dev.dml.events.JobStarted;
import dev.dml.events.PredictProgress;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.TableValidator;
import dev.dml.ray.train.result.PredictionTables;
import dev.dml.ray.train.result.ResultFiles;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Scores a table with a trained model on the cluster: the table is split into {@code workers}
 * contiguous Arrow shards here (with the model's columns and categories, as {@link
 * TrainResult#predict} encodes them), each shard goes to a worker actor that opens the model and
 * scores it, and the scores come back as one table in the input's row order: the input's
 * columns, then the columns {@link TrainResult#predict} returns ({@code p0..p(k-1)} and, for a
 * classifier, {@code predicted}). The predictions are those of {@link TrainResult#predict}.
 *
 * <pre>{@code
 * Table scored = Dml.predict(model).optWorkers(4)
 *         .optProgress(p -> System.out.printf("%,.0f rows/s%n", p.rowsPerSecond()))
 *         .build().predict(table);
 * }</pre>
 *
 * <p>The workers are killed when the call ends, however it ends; a worker that fails ends the
 * call with one line naming it. Without {@link Builder#optDriver} each call opens a cluster
 * (the builder's address, else {@code RAY_ADDRESS}, else an embedded head) and closes it after.
 * Interrupting the calling thread kills the workers.
 */
public final class BatchPredictor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchPredictor.class);
    private static final AtomicLong IDS = new AtomicLong();

    private final TrainResult model;
    private final int workers;
    private final int batchSize;
    private final double cpus;
    private final Consumer<PredictProgress> progress;
    private final DriverProcess driver;
    private final String clusterAddress;
    private final Duration timeout;
    private volatile List<WorkerInfo> lastWorkers = List.of();

    private BatchPredictor(Builder b) {
        this.model = b.model;
        this.workers = b.workers;
        this.batchSize = b.batchSize;
        this.cpus = b.cpus;
        this.progress = b.progress;
        this.driver = b.driver;
        this.clusterAddress = b.clusterAddress;
        this.timeout = b.timeout;
    }

    /**
     * Starts a predictor of a trained model.
     *
     * @param model the model, as {@code %dml train --into} binds it or {@link TrainResult#open}
     *     reads it
     * @return a builder
     */
    public static Builder builder(TrainResult model) {
        return new Builder(model);
    }

    /**
     * Scores every row of a table on the workers.
     *
     * @param table a table with the model's feature columns (the label is not needed)
     * @return a new table: the input's columns, then the prediction columns, in the input's
     *     row order
     * @throws DmlException when a feature column is missing or holds a bad value, the table
     *     has fewer rows than workers, a worker fails, or the call is interrupted
     */
    public Table predict(Table table) {
        return predict(table, task -> driver != null ? run(task, driver)
                : runOnOwnCluster(task));
    }

    /**
     * Checks a table against the model and this predictor without starting anything: the
     * feature columns and their values, the row count against the workers, and no column the
     * prediction adds.
     *
     * @param table the table {@link #predict} would score
     * @throws DmlException naming what is wrong and how to fix it
     */
    public void check(Table table) {
        checkShape(table);
        TableValidator.validate(table, model.columns().featuresOnly());
    }

    /** Encodes, scores with {@code scoring} (a driver, or a test's LOCAL mode), assembles. */
    Table predict(Table table, Function<ScoringTask, List<float[]>> scoring) {
        checkShape(table); // the encoder below checks the columns and their values
        List<byte[]> shards = ArrowShards.splitByRows(table, model.columns().featuresOnly(),
                workers);
        int[] bounds = ArrowShards.rowBounds(table.rowCount(), workers);
        int[] rows = new int[workers];
        for (int i = 0; i < workers; i++) {
            rows[i] = bounds[i + 1] - bounds[i];
        }
        String id = "dml-predict/" + IDS.incrementAndGet() + "-"
                + Long.toHexString(System.nanoTime() & 0xffffff);
        ScoringTask task = new ScoringTask(id, ResultFiles.toBytes(model), shards, rows,
                model.model().outputs(), batchSize, cpus, List.of("-Dai.djl.offline=true",
                        "-Dai.djl.pytorch.num_threads=1"), timeout);
        List<float[]> scored = scoring.apply(task);
        float[] p = new float[table.rowCount() * model.model().outputs()];
        int at = 0;
        for (float[] s : scored) { // shard i holds the rows after shard i-1's
            System.arraycopy(s, 0, p, at, s.length);
            at += s.length;
        }
        Table out = table.copy();
        out.setName(table.name() + " predictions");
        for (Column<?> c : PredictionTables.of(model, out.name(), p).columns()) {
            out.addColumns(c);
        }
        return out;
    }

    private void checkShape(Table table) {
        for (String c : PredictionTables.columnNames(model)) {
            if (table.containsColumn(c)) {
                throw new DmlException("The table already has a column '" + c + "', which the"
                        + " prediction adds.", "Drop or rename it, e.g. table.removeColumns(\""
                        + c + "\").");
            }
        }
        if (table.rowCount() < workers) {
            throw new DmlException("The table has " + table.rowCount() + " rows, fewer than the "
                    + workers + " {workers} asked for.", table.rowCount() == 0
                    ? "Pass a table with rows." : "Use at most " + table.rowCount()
                    + " {workers}.");
        }
    }

    /**
     * Returns the workers of the last call.
     *
     * @return rank, pid and host of each; empty before the first call
     */
    public List<WorkerInfo> workers() {
        return lastWorkers;
    }

    private List<float[]> runOnOwnCluster(ScoringTask task) {
        ClusterSpec.Builder cs = ClusterSpec.builder();
        if (clusterAddress != null) {
            cs.optAddress(clusterAddress);
        }
        try (RayCluster cluster = RayCluster.open(cs.build());
                DriverProcess own = cluster.openDriver()) {
            return run(task, own);
        }
    }

    private List<float[]> run(ScoringTask task, DriverProcess on) {
        CompletableFuture<ArrayList<float[]>> f = on.submit(task, this::deliver);
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof DmlException d ? d : new DmlException("The prediction failed: "
                    + c + ".", "See the driver log " + on.log() + ".", c);
        } catch (InterruptedException e) {
            try {
                on.call(new StopScoring(task.key), Duration.ofSeconds(30));
            } catch (DmlException stop) {
                LOG.warn("could not stop prediction {}: {}", task.key, stop.getMessage());
            }
            Thread.currentThread().interrupt();
            throw new DmlException("The prediction was interrupted; its workers were killed.",
                    "Run it again.", e);
        }
    }

    /** Takes an event of the scoring task: its workers, or progress. */
    void deliver(Object event) {
        if (event instanceof JobStarted started) {
            lastWorkers = started.workers();
        } else if (event instanceof PredictProgress p && progress != null) {
            try {
                progress.accept(p);
            } catch (RuntimeException e) {
                LOG.warn("progress listener failed on {}: {}", p, e.toString());
            }
        }
    }

    /** Builds a {@link BatchPredictor}; every option has a default. */
    public static final class Builder {
        private final TrainResult model;
        private int workers = 1;
        private int batchSize = dev.dml.ray.model.Predictions.BATCH;
        private double cpus = 1;
        private Consumer<PredictProgress> progress;
        private DriverProcess driver;
        private String clusterAddress;
        private Duration timeout = Duration.ofMinutes(10);

        private Builder(TrainResult model) {
            if (model == null) {
                throw new DmlException("Dml.predict needs a trained model, got null.",
                        "Pass the TrainResult of a training job or of TrainResult.open(dir).");
            }
            this.model = model;
        }

        /**
         * Sets the worker actors, each scoring one contiguous shard (default 1).
         *
         * @param workers at least 1, at most the table's rows
         * @return this builder
         */
        public Builder optWorkers(int workers) {
            this.workers = Checks.atLeast("{workers}", workers, 1,
                    "Pass the number of worker actors, e.g. {workers=2}.");
            return this;
        }

        /**
         * Sets the rows each worker scores in one forward pass (default 4096).
         *
         * @param rows at least 1
         * @return this builder
         */
        public Builder optBatchSize(int rows) {
            this.batchSize = Checks.atLeast("{batch-size}", rows, 1,
                    "Pass the rows per forward pass, e.g. {batch-size=1024}.");
            return this;
        }

        /**
         * Sets the CPUs each worker reserves (default 1; 0 lets workers share CPUs).
         *
         * @param cpus 0 or more
         * @return this builder
         */
        public Builder optCpusPerWorker(double cpus) {
            if (!(cpus >= 0) || Double.isInfinite(cpus)) {
                throw new DmlException("{cpus-per-worker} must be 0 or more, got " + cpus + ".",
                        "Pass the CPUs each worker reserves, e.g. {cpus-per-worker=1}.");
            }
            this.cpus = cpus;
            return this;
        }

        /**
         * Receives progress as the workers score, on the driver's reader thread.
         *
         * @param listener gets rows scored and throughput; one that throws loses that event
         * @return this builder
         */
        public Builder optProgress(Consumer<PredictProgress> listener) {
            this.progress = listener;
            return this;
        }

        /**
         * Runs on a driver the caller keeps open (the kernel's session driver) instead of
         * opening a cluster per call.
         *
         * @param driver the driver, borrowed
         * @return this builder
         */
        public Builder optDriver(DriverProcess driver) {
            this.driver = driver;
            return this;
        }

        /**
         * Sets the cluster a call without {@link #optDriver} opens.
         *
         * @param hostPort the cluster's {@code host:port}
         * @return this builder
         */
        public Builder optClusterAddress(String hostPort) {
            this.clusterAddress = hostPort;
            return this;
        }

        /**
         * Sets how long the workers may take to start, or to score a slice of their rows
         * (default 10 min).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder optTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new DmlException("The timeout must be positive, got " + timeout + ".",
                        "Pass a duration such as Duration.ofMinutes(5).");
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Builds the predictor.
         *
         * @return the predictor
         */
        public BatchPredictor build() {
            return new BatchPredictor(this);
        }
    }
}
