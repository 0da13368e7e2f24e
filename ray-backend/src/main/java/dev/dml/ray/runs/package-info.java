/**
 * Every training run recorded and comparable: {@link dev.dml.ray.runs.RecordedJobs} attaches a
 * {@link dev.dml.ray.runs.RunRecorder} to every job ({@code Dml.train}, {@code %dml train})
 * unless it runs with {@code --no-record}; the recorder writes its settings, data, metrics,
 * cost, end and model into a {@link dev.dml.ray.runs.RunStore} (SQLite in the user's dml
 * folder, written in batched transactions) and TensorBoard event files into the run's folder;
 * {@link dev.dml.ray.runs.Runs} reads them back as Tablesaw tables.
 *
 * <p>The event files are written by hand in TensorFlow's record format (TFRecord framing with
 * CRC32C around {@code Event} protocol buffers), with no protobuf or TensorFlow dependency, so
 * {@code tensorboard --logdir} on the store's folder shows dml's runs beside any others.
 */
package dev.dml.ray.runs;
