/**
 * Training on a Ray cluster, the API cells, the kernel adapter and the benchmarks use: a {@link
 * dev.dml.ray.train.TrainSpec} built by a {@link dev.dml.ray.train.TrainSpecBuilder} (validated
 * there, before any process starts; {@code SpecResolution} resolves the options beside the
 * builder whose fields it reads), the {@link dev.dml.ray.train.Strategy}, the running {@link
 * dev.dml.ray.train.TrainJob} with its {@link dev.dml.ray.train.TrainingListener}s, and the
 * {@link dev.dml.ray.train.TrainResult}.
 *
 * <p>The rest lives in subpackages, by concern: {@code settings} (option rules and resolution),
 * {@code runner} (the job's life in the driver), {@code worker} (the one worker actor and its
 * parts), {@code staged} (micro-batch schedules across stages), {@code recovery} (checkpoint
 * files, placement, the cluster's room), {@code device} (GPUs and telemetry) and {@code result}
 * (the trained model, its history, files and tables). Subpackages use this one; none of them
 * depends on another in a circle.
 *
 * <p>What crosses Ray is a plain {@link java.io.Serializable} class or bytes, never a record: Ray's
 * serializer rejects records. Events that cross only the driver channel are records.
 */
package dev.dml.ray.train;
