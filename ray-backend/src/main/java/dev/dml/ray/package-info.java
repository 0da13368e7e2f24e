/**
 * The engine's entry point: {@link dev.dml.ray.Dml} trains a job, plans one and predicts with a
 * trained model, from a notebook cell or plain Java. The subpackages follow the data path: the
 * cluster and driver ({@code cluster}), the job and its workers ({@code train}), the step on a
 * worker ({@code model}), the data ({@code data}), the collectives ({@code collective}, {@code
 * net}, {@code ps}), and around them {@code predict}, {@code plan} and {@code runs}. See {@code
 * docs/architecture.md}.
 */
package dev.dml.ray;
