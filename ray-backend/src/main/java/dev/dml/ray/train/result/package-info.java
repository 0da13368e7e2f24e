/**
 * What a finished job leaves: the trained model, its history and loss trend, the result's
 * serialized form (kept as earlier versions wrote it), its files and run folders, and the metric
 * and prediction tables. Runs no job; {@link dev.dml.ray.train.TrainResult} is the API over it.
 */
package dev.dml.ray.train.result;
