/**
 * Training on a Ray cluster, data-parallel or staged: the spec, the job, the workers and their
 * events.
 *
 * <p>The kernel builds a {@link dev.dml.ray.train.TrainSpec} (the table is validated there,
 * before any process starts) and starts a {@link dev.dml.ray.train.TrainJob} through {@link
 * dev.dml.ray.Dml}. The job sends one {@code TrainCommand} to a {@link
 * dev.dml.ray.cluster.DriverProcess}; the driver opens an {@link
 * dev.dml.ray.collective.ActorGroup} of {@link dev.dml.ray.train.TrainWorker}s, hands each its
 * Arrow shard, and asks all ranks to run a few steps at a time. The ranks average their
 * gradients among themselves (ring all-reduce); the driver only forwards their per-step reports
 * to the kernel as {@link dev.dml.ray.train.StepMetrics} and {@link
 * dev.dml.ray.train.EpochMetrics} events, which reach the {@link
 * dev.dml.ray.train.TrainingListener}s while training runs.
 *
 * <p>A {@link dev.dml.ray.train.Strategy.Staged} strategy (model, pipeline or hybrid
 * parallelism, {@link dev.dml.ray.train.TrainSpecBuilder#optStrategy}) sends a {@code
 * StagedCommand} instead: one actor per stage and replica ({@link
 * dev.dml.ray.pipeline.StageWorker}), the same {@link dev.dml.ray.train.TrainJob} and {@link
 * dev.dml.ray.train.TrainResult}, and a {@link dev.dml.ray.train.PipelineMetrics} event per step
 * for the listeners' {@code onPipeline}.
 *
 * <p>What crosses Ray or the driver channel is a plain {@link java.io.Serializable} class, never
 * a record: Ray's serializer rejects records.
 */
package dev.dml.ray.train;
