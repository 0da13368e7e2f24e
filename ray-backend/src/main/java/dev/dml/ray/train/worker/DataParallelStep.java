package dev.dml.ray.train.worker;

import dev.dml.Closeables;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.GradientCompression;
import dev.dml.ray.collective.GradientCompressor;
import dev.dml.ray.collective.GradientLayout;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.collective.GradientReducer;
import dev.dml.ray.collective.StopVote;
import dev.dml.events.StepPhase;
import dev.dml.ray.data.BatchStaging;
import dev.dml.ray.data.ShardArrays;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.model.BucketedBackward;
import dev.dml.ray.model.ModelStage;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A data-parallel rank's run of steps, in its {@link TrainWorker}: each a forward and backward
 * on the local batch, an all-reduce (average) of the gradients with every peer, and the
 * optimizer step. Step {@code t} of an epoch trains on rows {@code [t*B, (t+1)*B)} of the shard
 * in the epoch's reading order ({@link dev.dml.ray.data.RowOrder#epoch}), so the averaged
 * gradient equals that of the global batch, and a run redone from a snapshot gives the same
 * parameters.
 *
 * <p>An elastic job keeps its rows in as many shards as its most workers; with fewer, a rank
 * trains a batch of each of its shards and sums their gradients, the ranks all-reduce the sum,
 * and each divides it by the shards: the step equals the one all shards' ranks would take.
 * With {@code --accumulate K} each shard gives K consecutive batches per step, summed the same
 * way: the step equals one on a K times larger batch.
 *
 * <p>The gradients go to the rank's {@link GradientReducer}, which all-reduces them (with
 * {@code --compress}, compressed, keeping this rank's error feedback) or, with {@code
 * --bucket-mb}, has them handed bucket by bucket during the backward ({@link BucketedBackward})
 * and overlaps their all-reduces with it: the loop is the same either way. After the backward
 * each rank sends its {@link StopVote} (whether it got a pre-emption notice) and reads the
 * others' once its gradients are reduced, so that all stop after the same step.
 *
 * <p>With {@code --shard-optimizer} (ZeRO-1) or {@code --shard-gradients} (ZeRO-2) the
 * gradients are reduce-scattered instead and the optimizer is sharded: see {@link ShardedStep}.
 */
final class DataParallelStep implements StepStrategy {

    private final CollectiveWorker peers;
    /** The gradients sent to the all-reduce, reused: a fresh one per step is a G1 humongous. */
    private float[] gradients;
    /** One shard's gradients, when a rank trains several: reused like {@link #gradients}. */
    private float[] one;
    /** Each shard's reading order in {@link #orderEpoch}; see {@link #readOrders}. */
    private int[][] orders;
    private int orderEpoch = -1;
    /** Shards beyond the first, when an elastic job runs fewer workers than shards. */
    private final List<ShardStore> extra = new ArrayList<>();
    /** Shuffled batches, staged into arrays reused from step to step. */
    private final BatchStaging staging = new BatchStaging();
    /** The {@code --compress} scheme and its residual; null until the first step. */
    private GradientCompressor compressor;
    /** The reducer for {@link #reducerModel} in the group {@link #reducerGroup}. */
    private GradientReducer reducer;
    private ModelStage reducerModel;
    private WorkerInfo reducerGroup;
    /** The model's backward in buckets, when the reducer overlaps them; else null. */
    private BucketedBackward buckets;
    /** The backward in buckets this run uses, and where it hands them; null for none. */
    private BucketedBackward backward;
    private BucketedBackward.BucketSink sink;
    /** The update of a sharded optimizer ({@code --shard-optimizer}, ZeRO-1 or ZeRO-2). */
    private final ShardedStep sharded;
    /** Steps completed over the job, as of the last step; read when a call failed midway. */
    private volatile long completed = -1;

    DataParallelStep(CollectiveWorker peers) {
        this.peers = peers;
        this.sharded = new ShardedStep(peers);
    }

    /**
     * Gives this rank one more shard to train each step, beside the one its store holds: an
     * elastic job running fewer workers than shards.
     *
     * @return the shard's rows
     */
    int addShard(byte[] ipc, String name) {
        ShardStore s = new ShardStore(name + "/" + (extra.size() + 1));
        extra.add(s);
        return s.loadTrain(ipc);
    }

    /**
     * Frees the shards {@link #addShard} gave, as the job (re)starts; a regrouped job starts
     * its error feedback afresh, from the state it restored.
     */
    void dropShards() {
        Closeables.closeAll(extra);
        extra.clear();
        if (compressor != null) {
            compressor.reset();
        }
    }

    @Override
    public long completed() {
        return completed;
    }

    @Override
    public void close() {
        dropShards();
        Closeables.closeAll(reducer, staging, sharded);
        reducer = null;
    }

    /**
     * The reducer for this model and group: one that takes buckets during the backward where
     * {@code --bucket-mb} is above 0 and one rank trains one batch a step; else the plain one.
     */
    private GradientReducer reducer(ModelStage m, WorkerConfig config, boolean severalPerRank) {
        if (compressor == null) {
            compressor = new GradientCompressor(
                    GradientCompression.of(config.options().get(TrainOptions.COMPRESS)),
                    GradientLayout.of(m.parameterShapes()), 0, config.momentumCorrection(),
                    peers.info().worldSize());
        }
        if (reducer == null || reducerModel != m || reducerGroup != peers.info()) {
            Closeables.closeAll(reducer);
            // --bucket-mb: float32 megabytes (10^6 bytes) per bucket
            long floats = Math.round(config.options().get(TrainOptions.BUCKET_MB) * 1e6
                    / Float.BYTES);
            BucketedBackward b = floats > 0 && !severalPerRank
                    && !config.options().get(TrainOptions.SHARD_OPTIMIZER)
                    ? BucketedBackward.of(m, floats) : null;
            int[] offsets = null;
            if (b != null) {
                offsets = new int[b.buckets() + 1];
                for (int i = 0; i < offsets.length; i++) {
                    offsets[i] = b.offset(i);
                }
            }
            reducer = new GradientReducer(peers, compressor, offsets);
            buckets = reducer.overlaps() ? b : null;
            reducerModel = m;
            reducerGroup = peers.info();
        }
        return reducer;
    }

    @Override
    public StepsDone run(WorkerJob job, StepRange range) {
        ModelStage m = job.model();
        ShardArrays first = job.data().train();
        WorkerConfig config = job.config();
        List<ShardArrays> mine = new ArrayList<>(List.of(first));
        extra.forEach(s -> mine.add(s.train()));
        staging.keepOnly(mine);
        int n = m.parameterCount();
        int world = peers.info().worldSize();
        int[][] order = readOrders(config, range.epoch, mine, peers.info().rank(), world);
        int batchSize = config.options().get(TrainOptions.BATCH_SIZE);
        int k = config.options().get(TrainOptions.ACCUMULATE);
        boolean shardOptimizer = config.options().get(TrainOptions.SHARD_OPTIMIZER);
        boolean zero2 = config.options().get(TrainOptions.SHARD_GRADIENTS);
        // One batch per rank averages over the ranks; otherwise each rank sums its batches'
        // gradients and the sum over ranks is divided by all batches: the same mean either way.
        boolean severalPerRank = world != config.shards || k > 1;
        int batchesPerStep = config.shards * k;
        GradientReducer r = reducer(m, config, severalPerRank);
        backward = !zero2 ? buckets : severalPerRank ? null : sharded.overlapping();
        sink = zero2 ? sharded : reducer::bucketReady;
        // A momentum that runs before the all-reduce needs each rank's mean gradient, not a sum.
        boolean sumOfBatches = severalPerRank && !compressor.correctsMomentum();
        // Alone with its one shard, a rank's gradients already are the mean: no copies.
        boolean reduce = world > 1 || severalPerRank || compressor.correctsMomentum();
        float[] losses = new float[range.count];
        long[][] t = new long[4][range.count]; // compute, comm, bytes, inter-node bytes
        int done = 0;
        boolean stop = false;
        if (!zero2 && (gradients == null || gradients.length != n)) {
            gradients = new float[n]; // ZeRO-2 keeps none as long as the model
        }
        while (done < range.count && !stop) {
            int from = (range.first + done) * batchSize * k;
            long t0 = System.nanoTime();
            CollectiveStats before = peers.stats();
            try {
                losses[done] = severalPerRank
                        ? trainShards(m, mine, order, from, batchSize, k, zero2)
                        : train(m, first, order[0], from, batchSize, false);
            } catch (RuntimeException e) {
                r.abandon();
                sharded.abandon();
                throw e;
            }
            long t1 = System.nanoTime();
            long t2 = t1;
            StopVote vote = peers.voteToStop(peers.leaving());
            if (zero2) {
                t2 += sharded.zero2(m, sumOfBatches, batchesPerStep, severalPerRank);
            } else if (shardOptimizer) {
                t2 += sharded.zero1(m, gradients, sumOfBatches, batchesPerStep,
                        severalPerRank);
            } else if (reduce) {
                if (!severalPerRank && !r.overlaps()) {
                    m.copyGradients(FloatBuffer.wrap(gradients));
                } else if (severalPerRank && !sumOfBatches) {
                    scale(gradients, n, (float) world / batchesPerStep);
                }
                float[] reduced = r.reduce(gradients, sumOfBatches ? ReduceOp.SUM
                        : ReduceOp.AVERAGE, config.stepsPerEpoch <= 0 ? 0
                                : (double) (range.globalFirst + done) / config.stepsPerEpoch);
                if (sumOfBatches) {
                    scale(reduced, n, 1f / batchesPerStep);
                }
                t2 = System.nanoTime();
                m.setGradients(FloatBuffer.wrap(reduced));
            }
            stop = vote.anyStop();
            CollectiveStats after = peers.stats();
            if (!shardOptimizer) {
                m.step();
            }
            // only the all-reduce the backward did not hide counts as communication
            t[0][done] = (t1 - t0) + (System.nanoTime() - t2);
            t[1][done] = t2 - t1;
            t[2][done] = after.bytesSent() - before.bytesSent();
            t[3][done] = after.interNodeBytesSent() - before.interNodeBytesSent();
            done++;
            completed = range.globalFirst + done;
        }
        return new StepsDone(done, stop, Arrays.copyOf(losses, done),
                Arrays.copyOf(t[0], done), Arrays.copyOf(t[1], done), Arrays.copyOf(t[2], done),
                Arrays.copyOf(t[3], done), 0);
    }

    private static void scale(float[] a, int n, float by) {
        ShardedStep.scale(a, 0, n, by);
    }

    /**
     * Shards the model's optimizer (and with {@code --shard-gradients} its gradients) over
     * this rank's group, with fresh state: see {@link ShardedStep#shard}.
     */
    void shardOptimizer(ModelStage m, WorkerConfig config) {
        sharded.shard(m, config);
    }

    /**
     * The bytes of gradient buffers this rank holds for its step: the flat array (the model's
     * length) unsharded and with ZeRO-1, the owned chunks and a piece array with ZeRO-2.
     */
    long gradientBufferBytes() {
        long z2 = sharded.bufferBytes();
        return z2 >= 0 ? z2 : gradients == null ? 0 : (long) Float.BYTES * gradients.length;
    }

    /**
     * Trains one batch; with buckets, hands each to the reducer as its backward ends; {@code
     * add}: adds its gradients to those the model holds (no buckets then).
     */
    private float train(ModelStage m, ShardArrays shard, int[] order, int from,
            int batchSize, boolean add) {
        long t = m.clock().now();
        try (ShardArrays.Rows b = staging.rows(shard, order, from, from + batchSize)) {
            m.clock().lap(StepPhase.BATCH, t);
            return add ? m.addBatch(b.features(), b.labels())
                    : backward == null ? m.trainBatch(b.features(), b.labels())
                    : backward.trainBatch(b.features(), b.labels(), sink);
        }
    }

    /**
     * Each shard's reading order in an epoch (null entries without shuffling), computed once
     * per epoch. Rank r holds shards r, r + W, r + 2W, …: the order is a function of the shard,
     * so it stays the same whichever rank trains it after an elastic job changed size.
     */
    private int[][] readOrders(WorkerConfig config, int epoch, List<ShardArrays> mine, int rank,
            int world) {
        if (orders == null || orderEpoch != epoch || orders.length != mine.size()) {
            orders = new int[mine.size()][];
            for (int j = 0; j < mine.size(); j++) {
                orders[j] = config.readOrder(epoch, rank + j * world, mine.get(j).rows());
            }
            orderEpoch = epoch;
        }
        return orders;
    }

    /**
     * Trains {@code k} batches of each shard from row {@code from} on; leaves the sum of their
     * gradients in {@link #gradients}, or with {@code inModel} (ZeRO-2) in the model's own
     * gradients, and returns their mean loss.
     */
    private float trainShards(ModelStage m, List<ShardArrays> mine, int[][] order, int from,
            int batchSize, int k, boolean inModel) {
        int n = m.parameterCount();
        if (inModel) {
            m.zeroGradients();
        } else {
            if (one == null || one.length != n) {
                one = new float[n];
            }
            Arrays.fill(gradients, 0f);
        }
        double loss = 0;
        for (int j = 0; j < mine.size(); j++) {
            for (int b = 0; b < k; b++) {
                loss += train(m, mine.get(j), order[j], from + b * batchSize, batchSize,
                        inModel);
                if (inModel) {
                    continue;
                }
                m.copyGradients(FloatBuffer.wrap(one));
                for (int i = 0; i < n; i++) {
                    gradients[i] += one[i];
                }
            }
        }
        return (float) (loss / (mine.size() * k));
    }
}
