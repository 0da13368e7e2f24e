/**
 * The {@code dml} Jupyter kernel ({@link dev.dml.kernel.DmlKernelMain}): JShell evaluation of
 * Java cells ({@link dev.dml.kernel.JShellEvaluator}, {@link
 * dev.dml.kernel.CellExecutionControl}), the Jupyter channels and replies, buffered cell
 * output ({@link dev.dml.kernel.CellStreams}), {@code %maven} and {@code %jars}, and the adapter
 * that turns a {@code %dml} request into the engine's spec ({@link dev.dml.kernel.RayBackend},
 * {@link dev.dml.kernel.TrainRequests}).
 */
package dev.dml.kernel;
