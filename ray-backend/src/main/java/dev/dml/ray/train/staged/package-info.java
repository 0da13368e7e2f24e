/**
 * Staged execution (model, pipeline and hybrid parallelism) as the driver schedules it: the
 * partition of a model's layers into stages of balanced cost, the micro-batch schedules (GPipe,
 * 1F1B), one step's ops across the stages and the links between stages. A stage's own step on
 * its worker is {@code worker.StageStep}; the strategy's workers are {@code runner.StagedWorkers}.
 */
package dev.dml.ray.train.staged;
