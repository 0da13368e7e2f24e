/**
 * The Jupyter side of the kernel: the HMAC-checked shell and control channels ({@link
 * dev.dml.kernel.jupyter.SignedShellChannel}), the replies the kernel sends ({@link
 * dev.dml.kernel.jupyter.Replies}), a cell's buffered stdout and stderr and where they go
 * ({@link dev.dml.kernel.jupyter.KernelIO}, {@link dev.dml.kernel.jupyter.CellStreams}, {@link
 * dev.dml.kernel.jupyter.CellReplyEnvironment}), and how a table shows in a notebook ({@link
 * dev.dml.kernel.jupyter.TableDisplay}).
 *
 * <p>Knows nothing of JShell, Maven or Ray.
 */
package dev.dml.kernel.jupyter;
