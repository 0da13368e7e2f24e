package dev.dml.ray.predict;

import dev.dml.events.JobStarted;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.ActorGroupBuilder;
import dev.dml.ray.train.recovery.ClusterResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The driver's half of a distributed prediction: start one {@link PredictWorker} per shard,
 * send each the model and its shard, have every worker score its rows ({@link Slices}), and
 * kill the workers however it ends. Built in the kernel, which encoded the shards; only its
 * {@link #run} touches Ray, in the driver.
 */
final class ScoringTask implements DriverTask<ArrayList<float[]>> {

    private static final long serialVersionUID = 1L;

    /** The name the workers are registered under in the driver, for {@link StopScoring}. */
    final String key;
    private final byte[] model;
    private final ArrayList<byte[]> shards;
    private final int[] rows;
    private final int outputs;
    private final int batch;
    private final double cpus;
    private final ArrayList<String> jvmOptions;
    private final Duration timeout;

    ScoringTask(String key, byte[] model, List<byte[]> shards, int[] rows, int outputs,
            int batch, double cpus, List<String> jvmOptions, Duration timeout) {
        this.key = key;
        this.model = model;
        this.shards = new ArrayList<>(shards);
        this.rows = rows.clone();
        this.outputs = outputs;
        this.batch = batch;
        this.cpus = cpus;
        this.jvmOptions = new ArrayList<>(jvmOptions);
        this.timeout = timeout;
    }

    @Override
    public ArrayList<float[]> run(DriverContext context) {
        int n = shards.size();
        ClusterResources.check(n, cpus, 0);
        ActorGroupBuilder<PredictWorker> b = ActorGroup.builder(PredictWorker::new).setSize(n)
                .optCpusPerActor(cpus).optTimeout(timeout);
        jvmOptions.forEach(b::addJvmOption);
        ActorGroup<PredictWorker> group = context.register(key, b.open());
        try {
            context.emit(new JobStarted(group.workers()));
            group.callAll(PredictWorker::openModel, model);
            List<Integer> got = group.callEach(PredictWorker::openShard, shards);
            for (int r = 0; r < n; r++) {
                if (got.get(r) != rows[r]) {
                    throw new IllegalStateException("worker " + r + " decoded " + got.get(r)
                            + " rows of " + rows[r]);
                }
            }
            ArrayList<float[]> out = Slices.score(group, rows, outputs, batch, timeout,
                    context);
            group.callAll(PredictWorker::release);
            return out;
        } finally {
            context.release(key); // kills the workers
        }
    }
}
