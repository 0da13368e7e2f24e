/**
 * Sweeps ({@code %dml tune}): a search space written next to the options it varies ({@link
 * SearchSpace}), ASHA's early stopping at epoch rungs ({@link Asha}), and the loop that runs
 * the trials a few at a time, each an ordinary job with its own workers ({@link Sweep}).
 * Nothing here knows Ray: the notebook and the Java API start trials through a {@link
 * TrialLauncher}.
 */
package dev.dml.tune;
