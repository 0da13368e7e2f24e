package dev.dml.ray.predict;

import dev.dml.DmlException;
import dev.dml.events.JobStarted;
import dev.dml.events.PredictProgress;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.ActorGroupBuilder;
import dev.dml.ray.collective.Gather;
import dev.dml.ray.train.ClusterResources;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.WaitResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The driver's half of a distributed prediction: start one {@link PredictWorker} per shard,
 * send each the model and its shard, have every worker score its rows a slice at a time (all
 * slices queued at once, so workers never wait for the driver), report progress as slices come
 * back, and kill the workers however it ends. Built in the kernel, which encoded the shards.
 */
final class ScoringTask implements DriverTask<ArrayList<float[]>> {

    private static final long serialVersionUID = 1L;
    /** Slices per worker: how often each reports progress. */
    private static final int SLICES = 10;
    /** How long one wait for a slice lasts before the task looks for an interrupt. */
    private static final int WAIT_MS = 500;

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
            ArrayList<float[]> out = score(group, context);
            group.callAll(PredictWorker::release);
            return out;
        } finally {
            context.release(key); // kills the workers
        }
    }

    /** Queues every slice of every worker, then collects them as they finish. */
    private ArrayList<float[]> score(ActorGroup<PredictWorker> group, DriverContext context) {
        int n = group.size();
        long total = 0;
        ArrayList<float[]> out = new ArrayList<>();
        List<ObjectRef<float[]>> left = new ArrayList<>();
        Map<ObjectRef<float[]>, int[]> slices = new IdentityHashMap<>();
        long t0 = System.nanoTime();
        for (int r = 0; r < n; r++) {
            out.add(new float[rows[r] * outputs]);
            total += rows[r];
            int step = Math.max(batch, (rows[r] + SLICES - 1) / SLICES);
            for (int from = 0; from < rows[r]; from += step) {
                int to = Math.min(rows[r], from + step);
                ObjectRef<float[]> ref = group.actor(r).task(PredictWorker::score, from, to,
                        batch).remote();
                left.add(ref);
                slices.put(ref, new int[] {r, from, to});
            }
        }
        context.emit(new PredictProgress(0, total, n, 0));
        long done = 0;
        long lastProgress = System.nanoTime();
        while (!left.isEmpty()) {
            if (Thread.interrupted()) {
                throw new DmlException("The prediction was stopped; its workers were killed.",
                        "Run it again.");
            }
            WaitResult<float[]> w = Ray.wait(left, 1, WAIT_MS);
            if (w.getReady().isEmpty()) {
                if (System.nanoTime() - lastProgress > timeout.toNanos()) {
                    WorkerInfo who = group.workers().get(slices.get(left.get(0))[0]);
                    throw new DmlException("Prediction worker " + who.rank() + " (pid "
                            + who.pid() + " on " + who.nodeIp() + ") scored nothing for "
                            + timeout.toSeconds() + " s.", "Look for a stuck or dead worker:"
                            + " the worker logs under the Ray session's logs show it.");
                }
                continue;
            }
            for (ObjectRef<float[]> ref : w.getReady()) {
                int[] s = slices.get(ref);
                float[] p = Gather.await(List.of(ref), List.of(group.workers().get(s[0])),
                        "score", timeout).get(0);
                System.arraycopy(p, 0, out.get(s[0]), s[1] * outputs, p.length);
                left.remove(ref);
                done += s[2] - s[1];
            }
            lastProgress = System.nanoTime();
            context.emit(new PredictProgress(done, total, n, (lastProgress - t0) / 1e9));
        }
        return out;
    }
}
