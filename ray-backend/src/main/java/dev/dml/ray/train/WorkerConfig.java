package dev.dml.ray.train;

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

    private static final long serialVersionUID = 3L;

    final String job;
    final ModelSpec model;
    final OptimizerSpec optimizer;
    final int batchSize;
    final int microbatches;
    final int stage;
    final int fromLayer;
    final int toLayer;
    /** Read the shard in a new seeded order each epoch ({@link RowOrder#epoch}). */
    final boolean shuffle;
    /** The job's seed, of the reading order. */
    final long seed;
    /** Steps per epoch, from which a staged worker tells a micro-batch's epoch. */
    final int stepsPerEpoch;

    /**
     * A worker that holds the whole model.
     *
     * @param job the job's id, which names the worker's memory pools
     * @param model the model
     * @param optimizer the optimizer
     * @param batchSize rows per worker (per replica) and step
     * @param microbatches micro-batches per step; divides the batch size
     * @param shuffle read the shard in a new seeded order each epoch
     * @param seed the job's seed
     * @param stepsPerEpoch steps per epoch
     */
    WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, int batchSize,
            int microbatches, boolean shuffle, long seed, int stepsPerEpoch) {
        this(job, model, optimizer, batchSize, microbatches, 0, 0, model.layerCount(), shuffle,
                seed, stepsPerEpoch);
    }

    private WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, int batchSize,
            int microbatches, int stage, int fromLayer, int toLayer, boolean shuffle, long seed,
            int stepsPerEpoch) {
        this.job = job;
        this.model = model;
        this.optimizer = optimizer;
        this.batchSize = batchSize;
        this.microbatches = microbatches;
        this.stage = stage;
        this.fromLayer = fromLayer;
        this.toLayer = toLayer;
        this.shuffle = shuffle;
        this.seed = seed;
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
    WorkerConfig forStage(int s, int from, int to) {
        return new WorkerConfig(job, model, optimizer, batchSize, microbatches, s, from, to,
                shuffle, seed, stepsPerEpoch);
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
