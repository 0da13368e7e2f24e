package dev.dml.ray.data;

import dev.dml.Closeables;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import java.util.List;

/**
 * A decoded shard: the feature matrix {@code [rows, F]} float32 and, when the shard has a label,
 * the labels {@code [rows]} (int32 classes or float32 targets), as DJL arrays.
 *
 * <p>This object owns both arrays: closing it closes them. The arrays returned by {@link
 * #features()} and {@link #labels()} are borrowed; do not close them yourself. Open one with
 * {@link ShardDecoder#openArrays}.
 *
 * @param features the feature matrix, borrowed: a float32 array of shape {@code [rows, F]}
 * @param labels the labels, borrowed: an int32 or float32 array of shape {@code [rows]}, or
 *     {@code null} without a label
 * @param featureNames the feature names recorded in the shard, empty when the writer recorded
 *     none
 * @param labelKind what the label holds, or {@code null} without a label
 * @param classCount the number of classes recorded in the shard (over the whole table, not
 *     only this shard), or {@code 0} for regression or no label
 */
public record ShardArrays(NDArray features, NDArray labels, List<String> featureNames,
        LabelKind labelKind, int classCount) implements AutoCloseable {

    /** Keeps a copy of the names. */
    public ShardArrays {
        featureNames = List.copyOf(featureNames);
    }

    /**
     * Returns the number of rows.
     *
     * @return the row count
     */
    public int rows() {
        return (int) features.getShape().get(0);
    }

    /**
     * Returns the number of features per row.
     *
     * @return {@code F}
     */
    public int featureCount() {
        return (int) features.getShape().get(1);
    }

    /**
     * Opens rows {@code [from, to)} of a reading order (or of the shard, without one): their
     * features and labels, owned by the caller.
     *
     * @param order positions within the shard in reading order, or null for the stored order
     * @param from the first position in the order
     * @param to one past the last
     * @return the rows
     */
    public Rows openRows(int[] order, int from, int to) {
        if (order == null) {
            NDIndex range = new NDIndex("{}:{}", from, to);
            return new Rows(features.get(range), labels == null ? null : labels.get(range));
        }
        long[] picked = new long[to - from];
        for (int i = 0; i < picked.length; i++) {
            picked[i] = order[from + i];
        }
        try (NDArray at = features.getManager().create(picked)) {
            NDIndex gather = new NDIndex("{}", at); // rows in this order: x[at] in PyTorch
            return new Rows(features.get(gather), labels == null ? null : labels.get(gather));
        }
    }

    /**
     * Some rows of a shard, owned: closing closes both arrays.
     *
     * @param features {@code [n, F]} float32
     * @param labels {@code [n]}, or null without a label
     */
    public record Rows(NDArray features, NDArray labels) implements AutoCloseable {
        @Override
        public void close() {
            Closeables.closeAll(features, labels);
        }
    }

    /**
     * Joins decoded parts (the units a worker read) into one shard, in order, and closes the
     * parts.
     *
     * @param parts shards of the same columns, at least one; owned, closed here
     * @return the joined shard
     */
    public static ShardArrays concat(List<ShardArrays> parts) {
        ShardArrays first = parts.get(0);
        if (parts.size() == 1) {
            return first;
        }
        try {
            NDList f = new NDList();
            NDList l = new NDList();
            for (ShardArrays p : parts) {
                f.add(p.features);
                if (p.labels != null) {
                    l.add(p.labels);
                }
            }
            NDArray features = NDArrays.concat(f, 0);
            NDArray labels = l.isEmpty() ? null : NDArrays.concat(l, 0);
            int classes = parts.stream().mapToInt(p -> p.classCount).max().orElse(0);
            return new ShardArrays(features, labels, first.featureNames, first.labelKind,
                    classes);
        } finally {
            Closeables.closeAll(parts.toArray(AutoCloseable[]::new));
        }
    }

    @Override
    public void close() {
        Closeables.closeAll(features, labels);
    }
}
