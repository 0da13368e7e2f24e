package dev.dml.ray.train;

import dev.dml.events.ProcessSample;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.ModelStage;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * A data-parallel rank's run of steps, in its {@link TrainWorker}: each a forward and backward
 * on the local batch, an all-reduce (average) of the gradients with every peer, and the
 * optimizer step. Step {@code t} of an epoch trains on rows {@code [t*B, (t+1)*B)} of the shard
 * in the epoch's reading order ({@link dev.dml.ray.data.RowOrder#epoch}), so the averaged
 * gradient equals that of the global batch, and a run redone from a snapshot gives the same
 * parameters.
 *
 * <p>The all-reduced array carries one more float than the gradients: 1 from a rank that got a
 * pre-emption notice, else 0. After the reduction every rank knows whether one is leaving and
 * all stop after the same step, at no extra message.
 */
final class DataParallelSteps {

    private final CollectiveWorker peers;
    /** The gradients sent to the all-reduce, reused: a fresh one per step is a G1 humongous. */
    private float[] gradients;
    /** Steps completed over the job, as of the last step; read when a call failed midway. */
    volatile long completed = -1;

    DataParallelSteps(CollectiveWorker peers) {
        this.peers = peers;
    }

    /**
     * What a run did.
     *
     * @param steps the steps completed
     * @param stopped whether it stopped early on a pre-emption notice
     */
    record Done(int steps, boolean stopped, float[] losses, long[] compute, long[] comm,
            long[] bytes, long[] interNode) {

        WorkerReport report(long parameterHash, ProcessSample sample, boolean leaving) {
            return new WorkerReport(losses, compute, comm, bytes, interNode, 0, parameterHash,
                    sample, leaving);
        }
    }

    /**
     * Runs a range of steps.
     *
     * @param order the shard's reading order in the range's epoch, or null for its stored order
     */
    Done run(ModelStage m, ShardArrays shard, int[] order, int batchSize, StepRange range) {
        int n = m.parameterCount();
        int world = peers.info().worldSize();
        float[] losses = new float[range.count];
        long[] compute = new long[range.count];
        long[] comm = new long[range.count];
        long[] bytes = new long[range.count];
        long[] inter = new long[range.count];
        int done = 0;
        boolean stop = false;
        while (done < range.count && !stop) {
            int from = (range.first + done) * batchSize;
            long t0 = System.nanoTime();
            try (ShardArrays.Rows b = shard.openRows(order, from, from + batchSize)) {
                losses[done] = m.trainBatch(b.features(), b.labels());
            }
            long t1 = System.nanoTime();
            long t2 = t1;
            stop = RecoverableWorker.leaving();
            if (world > 1) {
                // Alone, a rank's gradients already are the average: skip three copies of them.
                CollectiveStats before = peers.stats();
                if (gradients == null || gradients.length != n + 1) {
                    gradients = new float[n + 1];
                }
                m.copyGradients(FloatBuffer.wrap(gradients, 0, n));
                gradients[n] = stop ? 1f : 0f;
                float[] mean = peers.allReduce(gradients, ReduceOp.AVERAGE);
                t2 = System.nanoTime();
                CollectiveStats after = peers.stats();
                bytes[done] = after.bytesSent() - before.bytesSent();
                inter[done] = after.interNodeBytesSent() - before.interNodeBytesSent();
                m.setGradients(FloatBuffer.wrap(mean, 0, n));
                stop = mean[n] > 0;
            }
            m.step();
            compute[done] = (t1 - t0) + (System.nanoTime() - t2);
            comm[done] = t2 - t1;
            done++;
            completed = range.globalFirst + done;
        }
        return new Done(done, stop, Arrays.copyOf(losses, done), Arrays.copyOf(compute, done),
                Arrays.copyOf(comm, done), Arrays.copyOf(bytes, done), Arrays.copyOf(inter, done));
    }
}
