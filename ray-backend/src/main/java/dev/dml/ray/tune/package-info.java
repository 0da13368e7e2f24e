/**
 * Sweeps from Java ({@code Dml.tune(spec)}): {@link dev.dml.ray.tune.Tuner} runs the trials of
 * a search space as ordinary recorded jobs on one driver, through the same {@link
 * dev.dml.tune.Sweep} and {@link dev.dml.tune.SweepPlan} as {@code %dml tune}, and returns a
 * {@link dev.dml.ray.tune.TuneResult}: the trials ranked and the best trial's model.
 */
package dev.dml.ray.tune;
