/**
 * Distributed batch inference: {@link dev.dml.ray.predict.BatchPredictor} splits a table into
 * contiguous Arrow shards, scores each on a worker actor with the trained model, and returns
 * one table in the input's row order ({@code Dml.predict(model)}, {@code %dml predict}).
 */
package dev.dml.ray.predict;
