/**
 * The pieces of model and pipeline parallelism that need no actor: how to split a model's
 * layers into stages of balanced cost ({@link dev.dml.ray.pipeline.Partition}), and the order in
 * which each stage runs its micro-batches' forward and backward passes ({@link
 * dev.dml.ray.pipeline.Schedules}, GPipe or 1F1B). The driver's {@code StagedWorkers} submits the
 * tasks in that order: every task's input is the Ray object reference the previous task
 * returned, so activations and gradients go from actor to actor through the object store, as
 * compact bytes, without passing through the driver.
 */
package dev.dml.ray.pipeline;
