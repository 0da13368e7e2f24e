/**
 * The {@code dml} Jupyter kernel: its entry point ({@link dev.dml.kernel.DmlKernelMain}), the
 * kernel itself ({@link dev.dml.kernel.DmlKernel}), which wires the other packages together,
 * and the static helpers cells call ({@link dev.dml.kernel.DmlNotebook}).
 *
 * <p>Cell evaluation lives in {@code exec}, the Jupyter wire and replies in {@code jupyter},
 * {@code %maven} and {@code %jars} in {@code maven}, and the adapter to the Ray engine in
 * {@code backend}; none of those depends on this package except {@code backend}, which reads
 * the notebook's variables through {@link dev.dml.kernel.DmlKernel}.
 */
package dev.dml.kernel;
