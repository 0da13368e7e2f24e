/**
 * What a finished job leaves: the trained model, its history and loss trend, the result's
 * serialized form (kept as earlier versions wrote it), its files and run folders, and the metric
 * and prediction tables, and {@link TrainResult}, the API over them. Runs no job.
 */
package dev.dml.ray.train.result;
