/**
 * Ray cluster lifecycle for a notebook kernel: find the Ray installation, resolve or start a
 * cluster ({@link dev.dml.ray.cluster.RayCluster}), and run the Ray driver in a child JVM
 * ({@link dev.dml.ray.cluster.DriverProcess}) so that no Ray failure can end the kernel.
 *
 * <p>Nothing in this package except {@link dev.dml.ray.cluster.DriverMain} (which runs only in
 * the child) touches the Ray API, so the kernel needs no Ray jar on its class path.
 */
package dev.dml.ray.cluster;
