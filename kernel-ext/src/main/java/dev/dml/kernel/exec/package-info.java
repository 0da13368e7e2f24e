/**
 * Runs Java cells: JShell evaluation ({@link dev.dml.kernel.exec.JShellEvaluator}) on an
 * execution control that runs each cell on its own interruptible thread ({@link
 * dev.dml.kernel.exec.CellExecutionControl}), cell errors and how their lines read ({@link
 * dev.dml.kernel.exec.CellException}, {@link dev.dml.kernel.exec.ErrorLines}), variables the
 * kernel binds into cells ({@link dev.dml.kernel.exec.Bindings}), classes cells define,
 * completion and inspection ({@link dev.dml.kernel.exec.CodeAssist}) and cell history.
 *
 * <p>Knows nothing of Jupyter messages, Maven or Ray.
 */
package dev.dml.kernel.exec;
