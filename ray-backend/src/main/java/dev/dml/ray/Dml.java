package dev.dml.ray;

import dev.dml.DmlException;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.events.ProgressListener;
import dev.dml.ray.predict.BatchPredictor;
import dev.dml.ray.runs.RecordedJobs;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.tune.Tuner;
import java.util.List;

/**
 * The entry point of dml: one call per operation, as {@code %dml train} makes them.
 *
 * <pre>{@code
 * TrainResult r = Dml.train(TrainSpec.builder()
 *         .setTable(table).setColumns(columns).setModel(ModelSpec.Family.MLP, 64)
 *         .optEpochs(3).optWorkers(2).build());
 *
 * TrainJob job = Dml.start(spec, driver);      // on a driver the kernel keeps open
 * job.stop();                                  // %dml stop, or a kernel interrupt
 *
 * Table scored = Dml.predict(r).optWorkers(2).build().predict(table);   // %dml predict
 *
 * TuneResult sweep = Dml.tune(spec)                                     // %dml tune
 *         .optSpace(TrainOptions.LR, "1e-4..1e-2:log").optSpace(TrainOptions.HIDDEN, "32|64,64")
 *         .optSearch("random").optTrials(12).optAsha(1, 3).optMetric("val_accuracy")
 *         .optConcurrent(2).build().run();
 * TrainResult best = sweep.best().orElseThrow();  // sweep.table(): the trials ranked
 * }</pre>
 *
 * <p>The table is validated when the spec is built, before any cluster or worker starts. The
 * kernel never calls Ray: training runs in a {@link DriverProcess}. Every job is recorded in
 * the run store ({@link dev.dml.ray.runs.Runs}) unless its spec turns recording off.
 */
public final class Dml {

    private Dml() {}

    /**
     * Trains and waits: opens the spec's cluster (its address, else {@code RAY_ADDRESS}, else
     * an embedded head on this machine) and a driver, runs the job, and closes both.
     *
     * @param spec the job
     * @return the trained model and the metrics
     * @throws DmlException when the cluster cannot be reached, a worker fails, or the job is
     *     stopped by an interrupt
     */
    public static TrainResult train(TrainSpec spec) {
        return start(spec).await();
    }

    /**
     * Starts a job on its own cluster and driver, closed when the job ends; returns once the
     * job runs.
     *
     * @param spec the job
     * @return the running job
     * @throws DmlException when the cluster or the driver cannot start
     */
    public static TrainJob start(TrainSpec spec) {
        ClusterSpec.Builder cs = ClusterSpec.builder();
        spec.clusterAddress().ifPresent(cs::optAddress);
        RayCluster cluster = RayCluster.open(cs.build());
        try {
            DriverProcess driver = cluster.openDriver();
            return RecordedJobs.start(spec, driver, List.of(), cluster::close);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Starts a job on a driver the caller keeps open (the kernel's session driver); returns at
     * once.
     *
     * @param spec the job
     * @param driver the driver, borrowed
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver) {
        return start(spec, driver, List.of());
    }

    /**
     * Starts a job on a driver the caller keeps open, with more listeners than its spec names
     * (the notebook's live plot); returns at once.
     *
     * @param spec the job
     * @param driver the driver, borrowed
     * @param progress receive the job's progress too
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver,
            List<ProgressListener> progress) {
        return RecordedJobs.start(spec, driver, progress, () -> { });
    }

    /**
     * Starts a sweep over a spec, as {@code %dml tune} runs one: each trial trains the spec with
     * the options {@code optSpace} varies, as an ordinary recorded job whose settings hold the
     * sweep's id; {@code build().run()} runs them a few at a time on one cluster and driver,
     * ASHA stopping weak ones when asked, and returns them ranked with the best trial's model.
     *
     * @param base what every trial trains (its validation rows give the {@code val_} metrics)
     * @return a builder
     */
    public static Tuner.Builder tune(TrainSpec base) {
        return Tuner.builder(base);
    }

    /**
     * Starts a distributed prediction with a trained model: its table is scored by worker
     * actors on the cluster and comes back in its row order, with the columns {@link
     * TrainResult#predict} adds.
     *
     * @param model the trained model
     * @return a builder; {@code build().predict(table)} runs it
     */
    public static BatchPredictor.Builder predict(TrainResult model) {
        return BatchPredictor.builder(model);
    }
}
