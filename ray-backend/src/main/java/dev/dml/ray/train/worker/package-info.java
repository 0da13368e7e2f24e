/**
 * The one worker actor, {@link dev.dml.ray.train.worker.TrainWorker}, and the parts it is composed
 * of: a step strategy per kind of step (data parallel, asynchronous, a pipeline stage), its data
 * in memory, its recovery part (snapshots, pre-emption notice) and validation. Runs in the worker
 * JVMs; what the driver does with the workers lives in {@code runner} and {@code staged}.
 */
package dev.dml.ray.train.worker;
