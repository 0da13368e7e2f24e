/**
 * Model, pipeline and hybrid parallelism: a model split by layer into stages, one Ray actor per
 * stage (and per replica).
 *
 * <p>The driver ({@code dev.dml.ray.train.StagedCommand}, run for a {@link
 * dev.dml.ray.train.Strategy.Staged} job) opens one {@link dev.dml.ray.collective.ActorGroup} of
 * {@link dev.dml.ray.pipeline.StageWorker}s per stage, with one actor per replica, so that a
 * stage's replicas average their gradients by the group's ring all-reduce. It splits the layers
 * ({@link dev.dml.ray.pipeline.Partition}), then submits each step's forward and backward tasks
 * in the order of a {@link dev.dml.ray.pipeline.Schedules schedule}: every task's input is the
 * Ray object reference the previous task returned, so activations and gradients go from actor
 * to actor through the object store, as compact bytes, without passing through the driver. Ray
 * runs an actor's tasks in the order they were submitted, which makes each stage follow its
 * schedule while the stages work concurrently on different micro-batches.
 *
 * <p>What crosses Ray is a plain {@link java.io.Serializable} class or {@code byte[]}.
 */
package dev.dml.ray.pipeline;
