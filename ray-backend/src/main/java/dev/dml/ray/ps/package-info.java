/**
 * Parameter servers for asynchronous data parallelism ({@code --sync async|ssp:S}, {@code
 * --ps N}): {@link dev.dml.ray.ps.ServerPartitions} deals whole parameter tensors to the servers,
 * balanced by size; {@link dev.dml.ray.ps.PartitionState} is one server's partition, its workers'
 * clocks and the bounded-staleness gate; {@link dev.dml.ray.ps.ParameterServer} is the Ray
 * actor around it; {@link dev.dml.ray.ps.ServerLink} is how a worker pushes its update and pulls
 * the parameters, with {@link dev.dml.ray.ps.RayServerLink} moving them as Ray actor calls.
 * The algorithm knows only {@code ServerLink}, so another transport slots in beneath it.
 */
package dev.dml.ray.ps;
