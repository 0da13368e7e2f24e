/**
 * A job's options beyond parsing: the table of rules that refuse one option because of another
 * ({@link dev.dml.ray.train.settings.OptionRuleTable}), the strategy, synchronization, image and
 * model resolution, and the worker-read file input. Owns no process and starts nothing; the spec
 * itself and the resolution that fills it stay in {@code dev.dml.ray.train}.
 */
package dev.dml.ray.train.settings;
