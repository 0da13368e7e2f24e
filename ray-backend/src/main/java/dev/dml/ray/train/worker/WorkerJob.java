package dev.dml.ray.train.worker;

import dev.dml.ray.model.ModelStage;

/**
 * What a {@link StepStrategy} trains with, as its {@link TrainWorker} holds it now: the model
 * (or this worker's stage of it), the worker's rows and the job's settings. Borrowed for one
 * call; the worker owns all three.
 *
 * @param model the model or stage
 * @param data the training and validation rows
 * @param config the job's settings
 */
record WorkerJob(ModelStage model, ShardStore data, WorkerConfig config) {}
