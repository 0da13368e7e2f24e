package dev.dml.ray.pipeline;

import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.Serializable;

/** What a stage actor needs: the model, its layers, the batch and micro-batches; crosses Ray. */
public final class StageConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    final String job;
    final ModelSpec model;
    final OptimizerSpec optimizer;
    final int stage;
    final int fromLayer;
    final int toLayer;
    final int batchSize;
    final int microbatches;

    /**
     * Creates a config.
     *
     * @param job the job's id, which names the actors' memory pools
     * @param model the whole model
     * @param optimizer the optimizer
     * @param stage this stage's index
     * @param fromLayer its first layer
     * @param toLayer one past its last layer
     * @param batchSize rows per replica and step
     * @param microbatches micro-batches per step; divides the batch size
     */
    public StageConfig(String job, ModelSpec model, OptimizerSpec optimizer, int stage,
            int fromLayer, int toLayer, int batchSize, int microbatches) {
        this.job = job;
        this.model = model;
        this.optimizer = optimizer;
        this.stage = stage;
        this.fromLayer = fromLayer;
        this.toLayer = toLayer;
        this.batchSize = batchSize;
        this.microbatches = microbatches;
    }

    /**
     * Returns the same config for another stage and layer range.
     *
     * @param s the stage
     * @param from its first layer
     * @param to one past its last layer
     * @return a new config
     */
    public StageConfig forStage(int s, int from, int to) {
        return new StageConfig(job, model, optimizer, s, from, to, batchSize, microbatches);
    }
}
