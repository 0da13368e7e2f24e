/**
 * Models and single-process training steps: a serializable {@link dev.dml.ray.model.ModelSpec}
 * and {@link dev.dml.ray.model.OptimizerSpec}, and a {@link dev.dml.ray.model.TrainingReplica} that
 * runs forward and backward on a batch, exposes the gradients as one flat buffer for all-reduce,
 * steps the optimizer, and saves its state to bytes.
 */
package dev.dml.ray.model;
