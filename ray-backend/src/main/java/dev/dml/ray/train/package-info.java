/**
 * Training on a Ray cluster: the spec, the job, the workers and the one lifecycle they share.
 *
 * <p>The kernel builds a {@link dev.dml.ray.train.TrainSpec} (the table is validated there, before
 * any process starts) and starts a {@link dev.dml.ray.train.TrainJob} through {@link
 * dev.dml.ray.Dml}. The job sends one {@code JobRunner} task to a {@link
 * dev.dml.ray.cluster.DriverProcess}. Whatever the strategy, the runner checks the cluster's
 * resources, starts the {@link dev.dml.ray.train.TrainWorker}s, loads their Arrow shards,
 * initialises or restores them, runs the steps, validates after each epoch, and releases them; the
 * strategy's {@code StrategyWorkers} says how the workers run a step (data parallelism: a few local
 * steps per call with a ring all-reduce; model, pipeline and hybrid parallelism: each step's
 * micro-batches scheduled across the stages), and driver-side listeners write checkpoints and check
 * that replicas agree. The driver forwards the workers' reports to the kernel as {@link
 * dev.dml.events.StepMetrics}, {@link dev.dml.events.EpochMetrics} and {@link
 * dev.dml.events.PipelineMetrics} events, which reach the {@link
 * dev.dml.ray.train.TrainingListener}s while training runs.
 *
 * <p>A {@link dev.dml.ray.train.TrainWorker} is one actor class for every strategy, composed rather
 * than stacked: it extends only {@link dev.dml.ray.collective.CollectiveWorker} and holds a step
 * strategy ({@code DataParallelStep}, {@code AsyncStep} or {@code StageStep}, behind {@code
 * StepStrategy}), a {@code WorkerRecovery} part (snapshots, pre-emption notice), its device and its
 * process sampler.
 *
 * <p>What crosses Ray is a plain {@link java.io.Serializable} class or bytes, never a record: Ray's
 * serializer rejects records. Events that cross only the driver channel are records.
 */
package dev.dml.ray.train;
