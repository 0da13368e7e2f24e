package dev.dml.ray.train.worker;

import dev.dml.options.Compression;
import dev.dml.options.OptimizerKind;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.MomentumCorrection;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.Serializable;

/**
 * What a worker needs to train: the job's options whole ({@link OptionValues}, read by the
 * steps), and what the spec derived from them: the model and the layers it holds, the
 * optimizer, the micro-batches, the shards. A data-parallel worker holds every layer; a stage of
 * a model-, pipeline- or hybrid-parallel job holds some. Crosses Ray, so a plain Serializable
 * class.
 */
public final class WorkerConfig implements Serializable {

    private static final long serialVersionUID = 8L;

    public final String job;
    public final ModelSpec model;
    public final OptimizerSpec optimizer;
    /**
     * The job's options as its spec resolved them ({@code --batch-size}, {@code --accumulate},
     * {@code --compress}, ...): the steps read what they need where they need it.
     */
    private final OptionValues options;
    final int microbatches;
    final int stage;
    final int fromLayer;
    final int toLayer;
    /** A data-parallel job's shards: its most workers, when it is elastic. */
    final int shards;
    /** Steps per epoch, from which a staged worker tells a micro-batch's epoch. */
    final int stepsPerEpoch;

    /**
     * A worker that holds the whole model.
     *
     * @param job the job's id, which names the worker's memory pools
     * @param model the model
     * @param optimizer the optimizer
     * @param options the job's options
     * @param microbatches micro-batches per step; divides the batch size
     * @param shards the job's data shards (one per replica of a staged job)
     * @param stepsPerEpoch steps per epoch
     */
    public WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, OptionValues options,
            int microbatches, int shards, int stepsPerEpoch) {
        this(job, model, optimizer, options, microbatches, 0, 0, model.layerCount(), shards,
                stepsPerEpoch);
    }

    private WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer,
            OptionValues options, int microbatches, int stage, int fromLayer, int toLayer,
            int shards, int stepsPerEpoch) {
        this.job = job;
        this.model = model;
        this.optimizer = optimizer;
        this.options = options;
        this.microbatches = microbatches;
        this.stage = stage;
        this.fromLayer = fromLayer;
        this.toLayer = toLayer;
        this.shards = shards;
        this.stepsPerEpoch = stepsPerEpoch;
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
        return new WorkerConfig(job, model, optimizer, options, microbatches, s, from, to,
                shards, stepsPerEpoch);
    }

    /** The job's options: {@code options().get(TrainOptions.BATCH_SIZE)}. */
    public OptionValues options() {
        return options;
    }

    /** Whether the scheme is top-k, whose workers run the optimizer's momentum themselves. */
    private boolean correctsMomentum() {
        return options.get(TrainOptions.COMPRESS).scheme() == Compression.Scheme.TOPK;
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

    /** The order rank {@code shard} reads its {@code rows} rows in, in an epoch; null: stored. */
    int[] readOrder(int epoch, int shard, int rows) {
        return options.get(TrainOptions.SHUFFLE)
                ? RowOrder.epoch(options.get(TrainOptions.SEED), epoch, shard, rows) : null;
    }
}
