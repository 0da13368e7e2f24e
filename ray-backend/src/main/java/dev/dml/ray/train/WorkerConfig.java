package dev.dml.ray.train;

import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.Serializable;

/** What every rank needs to train: model, optimizer, batch and checkpoints; crosses Ray. */
public final class WorkerConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    final String job;
    final ModelSpec model;
    final OptimizerSpec optimizer;
    final int batchSize;
    final int stepsPerEpoch;
    final String checkpointDir;
    final int checkpointEvery;

    WorkerConfig(String job, ModelSpec model, OptimizerSpec optimizer, int batchSize,
            int stepsPerEpoch, String checkpointDir, int checkpointEvery) {
        this.job = job;
        this.model = model;
        this.optimizer = optimizer;
        this.batchSize = batchSize;
        this.stepsPerEpoch = stepsPerEpoch;
        this.checkpointDir = checkpointDir;
        this.checkpointEvery = checkpointEvery;
    }
}
