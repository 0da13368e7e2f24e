/**
 * Actor groups and collectives for data-parallel training on Ray.
 *
 * <p>An {@link dev.dml.ray.collective.ActorGroup} creates {@code N} actors, each a {@link
 * dev.dml.ray.collective.CollectiveWorker} that knows its rank and its peers. Workers run a ring
 * all-reduce and a broadcast among themselves: each chunk is {@code Ray.put} by its sender and
 * handed to the receiver's {@code receive} as an {@code ObjectRef}, so the data moves actor to
 * actor through Ray's object store and never through the driver. Chunks travel as raw {@code
 * byte[]}, which Ray copies as one buffer. A {@link dev.dml.ray.collective.GradientCompression}
 * scheme can make those bytes fewer ({@code --compress}), with the error feedback a {@link
 * dev.dml.ray.collective.GradientCompressor} keeps per worker. A data-parallel rank reduces its
 * gradients through a {@link dev.dml.ray.collective.GradientReducer} (DDP's reducer: the whole
 * array, or buckets whose all-reduces overlap the backward), or, sharding them as ZeRO-2,
 * through {@link dev.dml.ray.collective.ShardedGradients} (each bucket reduce-scattered, its own
 * chunk kept), and votes to stop with a {@link dev.dml.ray.collective.StopVote}, a message of
 * its own beside the gradients.
 *
 * <p>Everything here runs in the Ray driver (a {@link dev.dml.ray.cluster.DriverTask}) or in
 * the actors, never in the kernel.
 */
package dev.dml.ray.collective;
