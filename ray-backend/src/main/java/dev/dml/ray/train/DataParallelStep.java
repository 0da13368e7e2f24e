package dev.dml.ray.train;

import dev.dml.Closeables;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.GradientCompression;
import dev.dml.ray.collective.GradientCompressor;
import dev.dml.ray.collective.GradientLayout;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.collective.TransportKind;
import dev.dml.ray.data.ShardArrays;
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
 * <p>The all-reduced array carries one more float than the gradients: 1 from a rank that got a
 * pre-emption notice, else 0. After the reduction every rank knows whether one is leaving and
 * all stop after the same step, at no extra message. With {@code --compress} the gradients
 * travel compressed ({@link GradientCompression}) and this rank keeps its error feedback; the
 * flag travels exactly.
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
    /** The {@code --compress} scheme and its residual; null until the first step. */
    private GradientCompressor compressor;
    /** The all-reduce that overlaps the backward, for {@link #overlapModel}; null if none. */
    private OverlappedReduce overlap;
    private ModelStage overlapModel;
    /** Steps completed over the job, as of the last step; read when a call failed midway. */
    private volatile long completed = -1;

    DataParallelStep(CollectiveWorker peers) {
        this.peers = peers;
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
        if (overlap != null) {
            overlap.close();
        }
    }

    /**
     * The overlapped all-reduce for this model, or null where the step takes the plain one:
     * {@code --bucket-mb 0}, a lossy {@code --compress}, a link that is not direct TCP (Ray's
     * calls need a task's thread), or a model that fits one bucket.
     */
    private OverlappedReduce overlap(ModelStage m, WorkerConfig config) {
        if (config.bucketFloats <= 0 || compressor.scheme().lossy()
                || !TransportKind.allDirect(peers.info().transport())) {
            return null;
        }
        if (overlapModel != m) {
            if (overlap != null) {
                overlap.close();
            }
            overlap = new OverlappedReduce(peers,
                    dev.dml.ray.model.BucketedBackward.of(m, config.bucketFloats));
            overlapModel = m;
        }
        return overlap.overlaps() ? overlap : null;
    }

    /**
     * Runs a range of steps.
     *
     * @param first the rank's first shard
     * @param config the job's batch, shards (more than the ranks when a worker trains several)
     *     and batches to add up per step
     */
    @Override
    public StepsDone run(WorkerJob job, StepRange range) {
        ModelStage m = job.model();
        ShardArrays first = job.data().train();
        WorkerConfig config = job.config();
        List<ShardArrays> mine = new ArrayList<>(List.of(first));
        extra.forEach(s -> mine.add(s.train()));
        int n = m.parameterCount();
        int world = peers.info().worldSize();
        int[][] order = readOrders(config, range.epoch, mine, peers.info().rank(), world);
        int batchSize = config.batchSize;
        int k = config.accumulate;
        // One batch per rank averages over the ranks; otherwise each rank sums its batches'
        // gradients and the sum over ranks is divided by all batches: the same mean either way.
        boolean severalPerRank = world != config.shards || k > 1;
        int batchesPerStep = config.shards * k;
        if (compressor == null) {
            compressor = new GradientCompressor(GradientCompression.of(config.compress),
                    GradientLayout.of(m.parameterShapes()), 1, config.momentumCorrection(),
                    world);
        }
        // A momentum that runs before the all-reduce needs each rank's mean gradient, not a sum.
        boolean sumOfBatches = severalPerRank && !compressor.correctsMomentum();
        float[] losses = new float[range.count];
        long[] compute = new long[range.count];
        long[] comm = new long[range.count];
        long[] bytes = new long[range.count];
        long[] inter = new long[range.count];
        int done = 0;
        boolean stop = false;
        OverlappedReduce overlapped = world > 1 && !severalPerRank ? overlap(m, config) : null;
        while (done < range.count && !stop) {
            int from = (range.first + done) * batchSize * k;
            long t0 = System.nanoTime();
            if (gradients == null || gradients.length != n + 1) {
                gradients = new float[n + 1];
            }
            if (overlapped != null) {
                CollectiveStats before = peers.stats();
                OverlappedReduce.Step st = overlapped.train(m, first, order[0], from, batchSize,
                        gradients, peers::leaving);
                CollectiveStats after = peers.stats();
                long t2 = System.nanoTime();
                m.setGradients(FloatBuffer.wrap(gradients, 0, n));
                m.step();
                losses[done] = st.loss();
                stop = st.stop();
                bytes[done] = after.bytesSent() - before.bytesSent();
                inter[done] = after.interNodeBytesSent() - before.interNodeBytesSent();
                // only the all-reduce the backward did not hide counts as communication
                compute[done] = (st.backwardEndNanos() - t0) + (System.nanoTime() - t2);
                comm[done] = t2 - st.backwardEndNanos();
                done++;
                completed = range.globalFirst + done;
                continue;
            }
            losses[done] = severalPerRank ? trainShards(m, mine, order, from, batchSize, k)
                    : train(m, first, order[0], from, batchSize);
            long t1 = System.nanoTime();
            long t2 = t1;
            stop = peers.leaving();
            if (world > 1 || severalPerRank || compressor.correctsMomentum()) {
                // Alone with its one shard, a rank's gradients already are the mean: no copies.
                if (!severalPerRank) {
                    m.copyGradients(FloatBuffer.wrap(gradients, 0, n));
                } else if (!sumOfBatches) {
                    scale(gradients, n, (float) world / batchesPerStep);
                }
                gradients[n] = stop ? 1f : 0f;
                float[] reduced = gradients;
                if (world > 1 || compressor.correctsMomentum()) {
                    CollectiveStats before = peers.stats();
                    compressor.setProgress(config.stepsPerEpoch <= 0 ? 0
                            : (double) (range.globalFirst + done) / config.stepsPerEpoch);
                    reduced = peers.allReduceCompressed(gradients,
                            sumOfBatches ? ReduceOp.SUM : ReduceOp.AVERAGE, compressor);
                    CollectiveStats after = peers.stats();
                    bytes[done] = after.bytesSent() - before.bytesSent();
                    inter[done] = after.interNodeBytesSent() - before.interNodeBytesSent();
                }
                if (sumOfBatches) {
                    scale(reduced, n, 1f / batchesPerStep);
                }
                t2 = System.nanoTime();
                m.setGradients(FloatBuffer.wrap(reduced, 0, n));
                stop = reduced[n] > 0;
            }
            m.step();
            compute[done] = (t1 - t0) + (System.nanoTime() - t2);
            comm[done] = t2 - t1;
            done++;
            completed = range.globalFirst + done;
        }
        return new StepsDone(done, stop, Arrays.copyOf(losses, done),
                Arrays.copyOf(compute, done), Arrays.copyOf(comm, done),
                Arrays.copyOf(bytes, done), Arrays.copyOf(inter, done), 0);
    }

    private static void scale(float[] a, int n, float by) {
        for (int i = 0; i < n; i++) {
            a[i] *= by;
        }
    }

    private static float train(ModelStage m, ShardArrays shard, int[] order, int from,
            int batchSize) {
        try (ShardArrays.Rows b = shard.openRows(order, from, from + batchSize)) {
            return m.trainBatch(b.features(), b.labels());
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
     * gradients in {@link #gradients} and returns their mean loss.
     */
    private float trainShards(ModelStage m, List<ShardArrays> mine, int[][] order, int from,
            int batchSize, int k) {
        int n = m.parameterCount();
        if (one == null || one.length != n) {
            one = new float[n];
        }
        Arrays.fill(gradients, 0f);
        double loss = 0;
        for (int j = 0; j < mine.size(); j++) {
            for (int b = 0; b < k; b++) {
                loss += train(m, mine.get(j), order[j], from + b * batchSize, batchSize);
                m.copyGradients(FloatBuffer.wrap(one));
                for (int i = 0; i < n; i++) {
                    gradients[i] += one[i];
                }
            }
        }
        return (float) (loss / (mine.size() * k));
    }
}
