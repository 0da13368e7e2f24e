/**
 * The adapter from the {@code %dml} magics to the Ray engine ({@link
 * dev.dml.kernel.backend.RayBackend}, found through {@code META-INF/services}): turning a
 * request into the engine's spec ({@link dev.dml.kernel.backend.TrainRequests}), reading the
 * notebook's variables and files ({@link dev.dml.kernel.backend.NotebookData}), running and
 * following jobs ({@link dev.dml.kernel.backend.PreparedRayJob}, {@link
 * dev.dml.kernel.backend.RunningRayJob}, {@link dev.dml.kernel.backend.FollowedRun}), and listing
 * and comparing recorded runs ({@link dev.dml.kernel.backend.RecordedRuns}, {@link
 * dev.dml.kernel.backend.RunFilter}).
 *
 * <p>Depends on {@code dev.dml.kernel} (the notebook's variables) and {@code jupyter} (tables);
 * nothing in the kernel depends on it, so another backend can replace it.
 */
package dev.dml.kernel.backend;
