package dev.dml.ray.train.worker;

import dev.dml.options.Precision;
import dev.dml.options.OptimizerKind;
import dev.dml.ray.collective.GradientCompression;
import dev.dml.ray.collective.MomentumCorrection;
import dev.dml.ray.collective.TopK;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.Serializable;

/**
 * What a worker needs to train: the model and the layers it holds, the optimizer, the batch and
 * its micro-batches. A data-parallel worker holds every layer; a stage of a model-, pipeline- or
 * hybrid-parallel job holds some. Crosses Ray, so a plain Serializable class.
 */
public final class WorkerConfig implements Serializable {

    private static final long serialVersionUID = 7L;

    public final String job;
    public final ModelSpec model;
    public final OptimizerSpec optimizer;
    public final int batchSize;
    final int microbatches;
    final int stage;
    final int fromLayer;
    final int toLayer;
    /** A data-parallel job's shards: its most workers, when it is elastic. */
    final int shards;
    /** Batches a data-parallel worker adds up per shard before each optimizer step. */
    public final int accumulate;
    /** GPUs the worker reserved; above 0 it trains on the GPU Ray assigned it. */
    final double gpus;
    /** Read the shard in a new seeded order each epoch ({@link RowOrder#epoch}). */
    final boolean shuffle;
    /** The job's seed, of the reading order. */
    final long seed;
    /** Steps per epoch, from which a staged worker tells a micro-batch's epoch. */
    final int stepsPerEpoch;
    /** How a data-parallel worker compresses its gradients: a {@code --compress} value. */
    final String compress;
    /**
     * Parameters per gradient bucket that a data-parallel worker all-reduces while its backward
     * goes on ({@code --bucket-mb}); 0 all-reduces after the whole backward.
     */
    final long bucketFloats;
    /** The type of the layers' products: a {@code --precision} value. */
    final Precision precision;
    /** ZeRO-1 ({@code --shard-optimizer}): each data-parallel rank updates its 1/N only. */
    public final boolean shardOptimizer;

    /**
     * A worker that holds the whole model.
     *
     * @param job the job's id, which names the worker's memory pools
     * @param model the model
     * @param optimizer the optimizer
     * @param batchSize rows per worker (per replica) and step
     * @param microbatches micro-batches per step; divides the batch size
     * @param shards the job's data shards (one per replica of a staged job)
     * @param accumulate batches a data-parallel worker adds up per shard and step
     * @param shuffle read the shard in a new seeded order each epoch
     * @param seed the job's seed
     * @param stepsPerEpoch steps per epoch
     */
    public WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, int batchSize,
            int microbatches, int shards, int accumulate, boolean shuffle, long seed,
            int stepsPerEpoch) {
        this(job, model, optimizer, batchSize, microbatches, 0, 0, model.layerCount(), shards,
                accumulate, 0, shuffle, seed, stepsPerEpoch, "none", 0, Precision.FP32, false);
    }

    private WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, int batchSize,
            int microbatches, int stage, int fromLayer, int toLayer, int shards,
            int accumulate, double gpus, boolean shuffle, long seed, int stepsPerEpoch,
            String compress, long bucketFloats, Precision precision, boolean shardOptimizer) {
        this.job = job;
        this.model = model;
        this.optimizer = optimizer;
        this.batchSize = batchSize;
        this.microbatches = microbatches;
        this.stage = stage;
        this.fromLayer = fromLayer;
        this.toLayer = toLayer;
        this.shards = shards;
        this.accumulate = accumulate;
        this.gpus = gpus;
        this.shuffle = shuffle;
        this.seed = seed;
        this.stepsPerEpoch = stepsPerEpoch;
        this.compress = compress;
        this.bucketFloats = bucketFloats;
        this.precision = precision;
        this.shardOptimizer = shardOptimizer;
    }

    /**
     * Returns the same config for one stage.
     *
     * @param s the stage
     * @param from its first layer
     * @param to one past its last layer
     * @return a new config
     */
    public WorkerConfig forStage(int s, int from, int to) {
        return new WorkerConfig(job, model, optimizer, batchSize, microbatches, s, from, to,
                shards, accumulate, gpus, shuffle, seed, stepsPerEpoch, compress, bucketFloats,
                precision, shardOptimizer);
    }

    /**
     * Returns the same config for workers that each reserved {@code g} GPUs.
     *
     * @param g {@code --gpus-per-worker}
     * @return a new config
     */
    public WorkerConfig withGpus(double g) {
        return new WorkerConfig(job, model, optimizer, batchSize, microbatches, stage, fromLayer,
                toLayer, shards, accumulate, g, shuffle, seed, stepsPerEpoch, compress,
                bucketFloats, precision, shardOptimizer);
    }

    /** Whether the scheme is top-k, whose workers run the optimizer's momentum themselves. */
    private boolean correctsMomentum() {
        return GradientCompression.of(compress) instanceof TopK;
    }

    /**
     * The optimizer a worker's model steps with: plain SGD on the summed velocities when top-k
     * runs the momentum before compressing ({@link #momentumCorrection}), else the job's.
     */
    OptimizerSpec modelOptimizer() {
        return correctsMomentum() ? optimizer.forCorrectedDirections() : optimizer;
    }

    /**
     * The job's optimizer momentum (SGD's, or Adam's moments) and clip norm, for top-k to run
     * before it compresses (Deep Gradient Compression's momentum correction); null for any
     * other scheme.
     */
    public MomentumCorrection momentumCorrection() {
        if (!correctsMomentum()) {
            return null;
        }
        return optimizer.kind() == OptimizerKind.ADAM
                ? new MomentumCorrection.Adam(optimizer.beta1(), optimizer.beta2(),
                        optimizer.epsilon(), optimizer.clipNorm())
                : new MomentumCorrection.Sgd(optimizer.momentum(), optimizer.clipNorm());
    }

    /**
     * Returns the same config with the step's gradient settings.
     *
     * @param scheme a {@code --compress} value
     * @param megabytes {@code --bucket-mb}: float32 megabytes (10^6 bytes) per bucket all-reduced
     *     during the backward; 0 for one all-reduce after the whole backward
     * @param p a {@code --precision} value: the type of the layers' products
     * @param sharded {@code --shard-optimizer}: the optimizer sharded over the data-parallel
     *     ranks
     * @return a new config
     */
    public WorkerConfig withGradients(String scheme, double megabytes, Precision p,
            boolean sharded) {
        return new WorkerConfig(job, model, optimizer, batchSize, microbatches, stage, fromLayer,
                toLayer, shards, accumulate, gpus, shuffle, seed, stepsPerEpoch, scheme,
                Math.round(megabytes * 1e6 / Float.BYTES), p, sharded);
    }

    /** The rows of one micro-batch. */
    int microbatchRows() {
        return batchSize / microbatches;
    }

    /** The order rank {@code shard} reads its {@code rows} rows in, in an epoch; null: stored. */
    int[] readOrder(int epoch, int shard, int rows) {
        return shuffle ? RowOrder.epoch(seed, epoch, shard, rows) : null;
    }
}
