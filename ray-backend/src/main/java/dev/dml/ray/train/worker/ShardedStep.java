package dev.dml.ray.train.worker;

import dev.dml.Closeables;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.collective.ShardedGradients;
import dev.dml.ray.model.BucketedBackward;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerShard;
import java.nio.FloatBuffer;

/**
 * The update of a data-parallel rank whose optimizer is sharded, a part of its {@link
 * DataParallelStep}.
 *
 * <p>ZeRO-1 ({@code --shard-optimizer}): the whole flat gradients are reduce-scattered after the
 * backward; the rank's {@link OptimizerShard} updates the range the ring left it, keeping
 * optimizer state for that range only, and an all-gather through the same flat array returns
 * the parameters to every rank. The backward runs whole, without buckets.
 *
 * <p>ZeRO-2 ({@code --shard-gradients}): the model is cut into the buckets of {@code
 * --bucket-mb} (one bucket with 0), and the rank owns the ring's chunk of each bucket ({@link
 * ShardedGradients}): each bucket is reduce-scattered as soon as the backward ends it (on the
 * communication thread, as the unsharded overlap all-reduces it) or, where nothing overlaps (one
 * bucket, Ray's transport, several batches a step), in turn after the backward, read from the
 * model's gradients in pieces. The optimizer steps the owned chunks, packed in an array of their
 * size, and the parameters are all-gathered bucket by bucket, piece by piece, straight into the
 * model. Several batches a step add up in the engine's own
 * gradient tensors ({@link ModelStage#addBatch}), not in a flat Java array.
 */
final class ShardedStep implements BucketedBackward.BucketSink, AutoCloseable {

    /** The elements one collective moves with {@code --bucket-mb 0}: 1 MB of floats. */
    private static final int PIECE_FLOATS = 250_000;

    private final CollectiveWorker peers;
    /** This rank's share of the optimizer; null until {@link #shard}. */
    private OptimizerShard shard;
    /** ZeRO-2's buckets and owned gradients, for {@link #model} in {@link #group}; or null. */
    private BucketedBackward buckets;
    private ShardedGradients grads;
    private ModelStage model;
    private WorkerInfo group;

    ShardedStep(CollectiveWorker peers) {
        this.peers = peers;
    }

    /**
     * Shards the model's optimizer over this rank's group, with fresh state: as the model is
     * built, and before a state is restored into it (the group, and so the rank's ranges, may
     * have changed). With {@code --shard-gradients} it also cuts the buckets and shards them.
     */
    void shard(ModelStage m, WorkerConfig config) {
        OptimizerShard.Peers p = new OptimizerShard.Peers() {
            @Override
            public double sumOverRanks(double x) {
                return peers.sumOverRanks(x);
            }

            @Override
            public void allGather(float[] buf) {
                if (grads == null) {
                    peers.allGather(buf);
                    return;
                }
                for (int b = 0; b < buckets.buckets(); b++) {
                    peers.allGather(buf, buckets.offset(b), buckets.offset(b + 1));
                }
            }
        };
        Closeables.closeAll(grads);
        grads = null;
        if (!config.options().get(TrainOptions.SHARD_GRADIENTS)) {
            int[] r = peers.shardRange(m.parameterCount());
            shard = OptimizerShard.install(m, r[0], r[1], p);
            return;
        }
        // --bucket-mb: float32 megabytes (10^6 bytes) per bucket; 0 is one bucket
        long floats = Math.round(config.options().get(TrainOptions.BUCKET_MB) * 1e6
                / Float.BYTES);
        buckets = BucketedBackward.of(m, floats > 0 ? floats : Long.MAX_VALUE);
        int[] offsets = new int[buckets.buckets() + 1];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = buckets.offset(i);
        }
        grads = new ShardedGradients(peers, offsets, (int) Math.min(Integer.MAX_VALUE,
                floats > 0 ? floats : PIECE_FLOATS));
        model = m;
        group = peers.info();
        shard = OptimizerShard.install(m, grads.ranges(), p);
    }

    /** The backward in buckets that hands each to this step, when they overlap; else null. */
    BucketedBackward overlapping() {
        return grads != null && grads.overlaps() ? buckets : null;
    }

    @Override
    public boolean copies() {
        return false;
    }

    @Override
    public void ready(int bucket, float[] none) {
        grads.bucketReady(bucket, buckets.gradients(bucket)::read);
    }

    /** Drops what a failed step handed over. */
    void abandon() {
        if (grads != null) {
            grads.abandon();
        }
    }

    /**
     * The bytes of gradient buffers this part holds, or -1 without ZeRO-2 (the flat array of
     * {@link DataParallelStep} counts then).
     */
    long bufferBytes() {
        return grads == null ? -1 : grads.bufferBytes();
    }

    /**
     * One ZeRO-1 update from the flat gradients: reduce-scatter, this rank's range of the
     * optimizer, all-gather of the parameters (the array is reused for them).
     *
     * @param gradients the summed gradients when {@code severalPerRank}; else overwritten
     * @return the nanoseconds spent in the two collectives
     */
    long zero1(ModelStage m, float[] gradients, boolean sumOfBatches, int batchesPerStep,
            boolean severalPerRank) {
        int n = m.parameterCount();
        int[] r = peers.shardRange(n);
        requireCovered(shard != null && shard.covers(r[0], r[1]));
        int world = peers.info().worldSize();
        if (!severalPerRank) {
            m.copyGradients(FloatBuffer.wrap(gradients));
        } else if (!sumOfBatches) {
            scale(gradients, 0, n, (float) world / batchesPerStep);
        }
        long t0 = System.nanoTime();
        peers.reduceScatter(gradients, sumOfBatches ? ReduceOp.SUM : ReduceOp.AVERAGE);
        long comm = System.nanoTime() - t0;
        if (sumOfBatches) {
            scale(gradients, r[0], r[1], 1f / batchesPerStep);
        }
        shard.step(gradients);
        t0 = System.nanoTime();
        peers.allGather(gradients);
        comm += System.nanoTime() - t0;
        m.setParameters(gradients);
        return comm;
    }

    /**
     * One ZeRO-2 update after the backward: the buckets' reduce-scatters awaited (or run now),
     * the owned chunks' optimizer step, and the parameters all-gathered bucket by bucket.
     *
     * @return the nanoseconds spent waiting for or running collectives
     */
    long zero2(ModelStage m, boolean sumOfBatches, int batchesPerStep,
            boolean severalPerRank) {
        requireCovered(grads != null && model == m && group == peers.info()
                && shard.covers(grads.ranges()));
        long t0 = System.nanoTime();
        if (!severalPerRank && grads.overlaps()) {
            grads.await();
        } else {
            float by = severalPerRank && !sumOfBatches
                    ? (float) peers.info().worldSize() / batchesPerStep : 1f;
            for (int b = buckets.buckets() - 1; b >= 0; b--) {
                grads.reduce(b, buckets.gradients(b)::read, by, sumOfBatches ? ReduceOp.SUM
                        : ReduceOp.AVERAGE);
            }
        }
        long comm = System.nanoTime() - t0;
        float[] owned = grads.owned();
        if (sumOfBatches) {
            scale(owned, 0, owned.length, 1f / batchesPerStep);
        }
        shard.stepPacked(owned);
        t0 = System.nanoTime();
        for (int b = 0; b < buckets.buckets(); b++) {
            grads.gather(b, buckets.parameters(b)::write);
        }
        return comm + System.nanoTime() - t0;
    }

    private static void requireCovered(boolean covered) {
        if (!covered) {
            throw new IllegalStateException("the optimizer shard does not cover this rank's"
                    + " ranges: restore the state after the group changes");
        }
    }

    static void scale(float[] a, int from, int to, float by) {
        for (int i = from; i < to; i++) {
            a[i] *= by;
        }
    }

    @Override
    public void close() {
        Closeables.closeAll(grads);
        grads = null;
    }
}
