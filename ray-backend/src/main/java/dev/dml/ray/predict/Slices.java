package dev.dml.ray.predict;

import dev.dml.DmlException;
import dev.dml.events.PredictProgress;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.Gather;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.WaitResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the driver has the workers score their shards: each worker's rows in about {@value
 * #SLICES} slices, every slice queued at once (a worker runs its calls in order, so it never
 * waits for the driver), collected as they finish, with progress after each. In the driver
 * only: it calls Ray.
 */
final class Slices {

    /** Slices per worker: how often each reports progress. */
    private static final int SLICES = 10;
    /** How long one wait for a slice lasts before the task looks for an interrupt. */
    private static final int WAIT_MS = 500;

    private Slices() {}

    /**
     * Queues every slice of every worker, then collects them as they finish.
     *
     * @return each worker's scores, {@code outputs} per row, by rank
     */
    static ArrayList<float[]> score(ActorGroup<PredictWorker> group, int[] rows, int outputs,
            int batch, Duration timeout, DriverContext context) {
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
