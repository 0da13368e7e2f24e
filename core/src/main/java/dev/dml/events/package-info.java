/**
 * A training job's events, as they travel from the workers through the driver to the notebook:
 * {@link dev.dml.events.StepMetrics}, {@link dev.dml.events.EpochMetrics}, {@link
 * dev.dml.events.PipelineMetrics}, each worker's {@link dev.dml.events.ProcessSample}, and the
 * {@link dev.dml.events.ProgressListener} that receives them. The engine produces them and the
 * live plot draws them, with no copy in between.
 */
package dev.dml.events;
