/**
 * Training on a Ray cluster: the job's settings as a caller gives them, a {@link
 * dev.dml.ray.train.TrainSpec} built by a {@link dev.dml.ray.train.TrainSpecBuilder} (validated
 * there, before any process starts; {@code SpecResolution} resolves the options beside the
 * builder whose fields it reads), and the {@link dev.dml.ray.train.TrainingListener}s a caller
 * adds.
 *
 * <p>The rest lives in subpackages, by concern, each pointing down only: {@code runner} (the
 * job's life in the driver, and {@code TrainJob}, the running job) uses this package and all the
 * others; this package uses {@code settings} (option rules, resolution and the {@code Strategy})
 * and {@code result} (the {@code TrainResult}: trained model, history, files and tables);
 * {@code staged} (micro-batch schedules across stages) uses {@code worker} (the one worker actor
 * and its parts), which uses {@code recovery} (checkpoint files, placement, the cluster's room)
 * and {@code device} (GPUs and telemetry). {@code PackageCyclesTest} keeps it so.
 *
 * <p>What crosses Ray is a plain {@link java.io.Serializable} class or bytes, never a record: Ray's
 * serializer rejects records. Events that cross only the driver channel are records.
 */
package dev.dml.ray.train;
