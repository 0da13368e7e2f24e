package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.BucketedBackward;
import dev.dml.ray.model.ModelStage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A data-parallel rank's step whose gradient all-reduce overlaps its backward pass: each
 * bucket of layers ({@link BucketedBackward}) is averaged with the peers on a communication
 * thread as soon as its backward is done, while the earlier layers' backward goes on. Buckets
 * go in the same order on every rank (the last layers' first), so their collectives match.
 *
 * <p>The bucket nearest the input is reduced last and carries the pre-emption flag in its spare
 * float, as the plain step's array does. The averages are the plain all-reduce's, bucket by
 * bucket, so the step's parameters are the same.
 */
final class OverlappedReduce implements AutoCloseable {

    private final CollectiveWorker peers;
    private final BucketedBackward buckets;
    private final ExecutorService comm;

    /** What a step did: its loss, and whether a rank is leaving after it. */
    record Step(float loss, boolean stop, long backwardEndNanos) {}

    OverlappedReduce(CollectiveWorker peers, BucketedBackward buckets) {
        this.peers = peers;
        this.buckets = buckets;
        this.comm = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "dml-overlap-" + peers.info().rank());
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether the model has more than one bucket, so that something can overlap. */
    boolean overlaps() {
        return buckets.buckets() > 1;
    }

    /**
     * Trains one batch and leaves the averaged gradients in {@code reduced}.
     *
     * @param reduced the model's flat gradients, overwritten with the average over ranks
     * @param leaving whether this rank got a pre-emption notice, read when the last bucket goes
     */
    Step train(ModelStage m, ShardArrays shard, int[] order, int from, int batchSize,
            float[] reduced, java.util.function.BooleanSupplier leaving) {
        int n = buckets.buckets();
        List<Future<float[]>> sent = new ArrayList<>(n);
        int[] which = new int[n];
        float loss;
        try (ShardArrays.Rows b = shard.openRows(order, from, from + batchSize)) {
            loss = buckets.trainBatch(b.features(), b.labels(), (bucket, grads) -> {
                if (bucket == 0) {
                    grads[grads.length - 1] = leaving.getAsBoolean() ? 1f : 0f;
                }
                which[sent.size()] = bucket;
                sent.add(comm.submit(() -> peers.allReduce(grads, ReduceOp.AVERAGE)));
            });
        } catch (RuntimeException e) {
            sent.forEach(f -> f.cancel(true));
            throw e;
        }
        long backwardEnd = System.nanoTime();
        boolean stop = false;
        try {
            for (int i = 0; i < sent.size(); i++) {
                float[] avg = await(sent.get(i));
                int bucket = which[i];
                int len = buckets.offset(bucket + 1) - buckets.offset(bucket);
                System.arraycopy(avg, 0, reduced, buckets.offset(bucket), len);
                stop |= bucket == 0 && avg[len] > 0;
            }
        } catch (RuntimeException e) {
            // a bucket still queued must not run in the group that recovery forms next
            sent.forEach(f -> f.cancel(true));
            throw e;
        }
        return new Step(loss, stop, backwardEnd);
    }

    private static float[] await(Future<float[]> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("The step was interrupted while its gradients were being"
                    + " all-reduced.", "Run the job again.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r; // a CollectiveException: a peer failed, and recovery takes it from here
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        comm.shutdownNow();
    }
}
