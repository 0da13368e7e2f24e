/**
 * The job's life in the driver: {@link dev.dml.ray.train.runner.JobRunner} checks the cluster,
 * starts the workers, loads their shards, runs the steps through a strategy's {@code
 * StrategyWorkers} (data parallel or staged), validates, recovers lost workers, writes
 * checkpoints and releases everything; the driver-side listeners (history, cost, checkpoints,
 * divergence, early stopping) hear its events. Owns no step logic on a worker ({@code worker}).
 */
package dev.dml.ray.train.runner;
