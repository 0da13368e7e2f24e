/**
 * Models and their training steps: a serializable {@link dev.dml.ray.model.ModelSpec} and
 * {@link dev.dml.ray.model.OptimizerSpec}, and a {@link dev.dml.ray.model.ModelStage} that holds
 * the whole model or some of its layers, runs forward and backward on a batch (or, through its
 * {@link dev.dml.ray.model.MicroBatchGraph}, on a pipeline's micro-batches), exposes the
 * gradients as one flat buffer for all-reduce, steps the optimizer, and saves its state to bytes.
 * A stage is composed of parts: {@code StageNetwork} (blocks, device, forward pass), {@link
 * dev.dml.ray.model.ParameterBuffers} (flat parameters and gradients) and {@code StageTraining}
 * (loss, backward, optimizer, fp16 loss scale).
 */
package dev.dml.ray.model;
