package dev.dml.ray.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.dml.Closeables;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stages shuffled batches of a worker's shards into arrays it keeps from one step to the next.
 * A gather ({@code x[order]} in PyTorch) allocates an index array and two new arrays every step,
 * whose fresh pages the kernel then faults in; here each row is copied from the shard's memory
 * straight into the staged array's, which stays mapped. Batches in the stored order need no
 * copy at all: they are views of the shard ({@link ShardArrays#openRows}).
 *
 * <p>A staged batch is overwritten by the next one of its shard, so a caller trains one batch
 * of a shard before it stages the next (as a step does). The rows it returns are views; closing
 * them leaves the staged arrays, which {@link #close} frees. A shard of 2 GiB or more (beyond a
 * {@code ByteBuffer}) is gathered as before.
 */
public final class BatchStaging implements AutoCloseable {

    private final Map<ShardArrays, Staged> staged = new IdentityHashMap<>();

    /**
     * Returns rows {@code [from, to)} of a reading order of a shard, as {@link
     * ShardArrays#openRows} does.
     *
     * @param shard the shard, open
     * @param order positions within the shard in reading order, or null for the stored order
     * @param from the first position in the order
     * @param to one past the last
     * @return the rows, owned by the caller: views of this staging's arrays when shuffled
     */
    public ShardArrays.Rows rows(ShardArrays shard, int[] order, int from, int to) {
        if (order == null) {
            return shard.openRows(null, from, to);
        }
        Staged s = staged.computeIfAbsent(shard, Staged::of);
        return s == Staged.NONE ? shard.openRows(order, from, to) : s.rows(order, from, to);
    }

    /**
     * Frees the staged arrays of every shard not in {@code current}: the shards a job dropped
     * or replaced.
     *
     * @param current the shards the worker trains now
     */
    public void keepOnly(List<ShardArrays> current) {
        List<ShardArrays> gone = new ArrayList<>();
        for (ShardArrays s : staged.keySet()) {
            if (current.stream().noneMatch(c -> c == s)) {
                gone.add(s);
            }
        }
        gone.forEach(s -> Closeables.closeAll(staged.remove(s)));
    }

    @Override
    public void close() {
        Closeables.closeAll(staged.values());
        staged.clear();
    }

    /** One shard's staged batch and views of the shard's own memory. */
    private static final class Staged implements AutoCloseable {
        /** A shard this staging gathers instead: too large for a buffer. */
        static final Staged NONE = new Staged(null);

        final ShardArrays shard;
        /** The shard's own memory, and the bytes of one row of it. */
        final ByteBuffer features;
        final ByteBuffer labels;
        final int featureBytes;
        final int labelBytes;
        NDArray batchFeatures;
        NDArray batchLabels;
        /** The staged arrays' memory: kept, as each read is a call into the engine. */
        ByteBuffer stagedFeatures;
        ByteBuffer stagedLabels;

        private Staged(ShardArrays shard) {
            this.shard = shard;
            NDArray y = shard == null ? null : shard.labels();
            features = shard == null ? null : shard.features().toByteBuffer(true);
            labels = y == null ? null : y.toByteBuffer(true);
            featureBytes = shard == null || shard.rows() == 0 ? 0
                    : (int) (bytes(shard.features()) / shard.rows());
            labelBytes = y == null ? 0 : y.getDataType().getNumOfBytes();
        }

        static Staged of(ShardArrays shard) {
            NDArray x = shard.features();
            boolean fits = bytes(x) < Integer.MAX_VALUE && x.getDevice().equals(
                    ai.djl.Device.cpu());
            return fits ? new Staged(shard) : NONE;
        }

        private static long bytes(NDArray a) {
            return a.size() * a.getDataType().getNumOfBytes();
        }

        ShardArrays.Rows rows(int[] order, int from, int to) {
            int n = to - from;
            if (batchFeatures == null || batchFeatures.getShape().get(0) < n) {
                close();
                Shape shape = shard.features().getShape();
                batchFeatures = shard.features().getManager().zeros(
                        new Shape(n, shape.get(1)), shard.features().getDataType());
                stagedFeatures = batchFeatures.toByteBuffer(true);
                if (labels != null) {
                    batchLabels = shard.labels().getManager().zeros(new Shape(n),
                            shard.labels().getDataType());
                    stagedLabels = batchLabels.toByteBuffer(true);
                }
            }
            ByteBuffer bx = stagedFeatures;
            ByteBuffer by = labels == null ? null : stagedLabels;
            for (int i = 0; i < n; i++) {
                int row = order[from + i];
                bx.put(i * featureBytes, features, row * featureBytes, featureBytes);
                if (by != null) {
                    by.put(i * labelBytes, labels, row * labelBytes, labelBytes);
                }
            }
            NDIndex first = new NDIndex("0:{}", n);
            return new ShardArrays.Rows(batchFeatures.get(first),
                    labels == null ? null : batchLabels.get(first));
        }

        @Override
        public void close() {
            Closeables.closeAll(batchFeatures, batchLabels);
            batchFeatures = null;
            batchLabels = null;
            stagedFeatures = null;
            stagedLabels = null;
        }
    }
}
