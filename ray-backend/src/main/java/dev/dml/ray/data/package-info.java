/**
 * The data path: Tablesaw tables checked against a {@link dev.dml.ray.data.ColumnSelection},
 * encoded as Apache Arrow IPC streams, split into one {@code byte[]} shard per worker, and decoded
 * on the worker straight into DJL {@code NDArray}s.
 *
 * <p>A shard crosses Ray as a plain {@code byte[]}: an Arrow IPC stream with one {@code
 * FixedSizeList<float32>} column {@code features} (row-major, so decoding is one bulk copy) and one
 * {@code label} column ({@code int32} classes or {@code float32} targets). See {@link
 * dev.dml.ray.data.ShardFormat}.
 */
package dev.dml.ray.data;
