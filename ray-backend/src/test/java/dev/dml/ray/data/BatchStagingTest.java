package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Staged batches hold what a gather of the same reading order holds, bitwise, for class and
 * target labels, batch after batch in the same arrays; a stored order stays a view of the shard.
 */
class BatchStagingTest {

    private static final int ROWS = 40;
    private static final int F = 6;

    @Test
    void stagedBatchesEqualTheGatherOfTheirOrder() {
        try (NDManager m = NDManager.newBaseManager("PyTorch");
                ShardArrays shard = shard(m, m.arange(ROWS).toType(
                        ai.djl.ndarray.types.DataType.INT32, false));
                ShardArrays targets = shard(m, m.arange(0f, ROWS).mul(0.5f));
                BatchStaging staging = new BatchStaging()) {
            int[] order = RowOrder.permutation(ROWS, 17L);
            for (ShardArrays s : List.of(shard, targets)) {
                for (int from = 0; from < ROWS; from += 16) { // the last batch is shorter
                    int to = Math.min(ROWS, from + 16);
                    try (ShardArrays.Rows staged = staging.rows(s, order, from, to);
                            ShardArrays.Rows gathered = s.openRows(order, from, to)) {
                        assertEquals(new Shape(to - from, F), staged.features().getShape());
                        assertArrayEquals(gathered.features().toFloatArray(),
                                staged.features().toFloatArray());
                        assertEquals(gathered.labels().getDataType(),
                                staged.labels().getDataType());
                        assertArrayEquals(gathered.labels().toByteArray(),
                                staged.labels().toByteArray());
                    }
                }
            }
            // rows in the stored order: a slice of the shard, as before
            try (ShardArrays.Rows plain = staging.rows(shard, null, 8, 24)) {
                assertArrayEquals(shard.features().get("8:24").toFloatArray(),
                        plain.features().toFloatArray());
            }
            staging.keepOnly(List.of(targets)); // frees the first shard's staged batch
            try (ShardArrays.Rows again = staging.rows(targets, order, 0, 16)) {
                assertEquals(16, again.features().getShape().get(0));
            }
        }
    }

    @Test
    void aShardWithoutLabelsStagesItsFeatures() {
        try (NDManager m = NDManager.newBaseManager("PyTorch");
                ShardArrays shard = shard(m, null);
                BatchStaging staging = new BatchStaging();
                ShardArrays.Rows rows = staging.rows(shard, new int[] {3, 1, 2}, 0, 3)) {
            assertNull(rows.labels());
            assertArrayEquals(shard.features().get("3").toFloatArray(),
                    rows.features().get("0").toFloatArray());
        }
    }

    private static ShardArrays shard(NDManager m, NDArray labels) {
        NDArray x = m.randomUniform(0f, 1f, new Shape(ROWS, F));
        return new ShardArrays(x, labels, List.of(), labels == null ? null
                : labels.getDataType() == ai.djl.ndarray.types.DataType.INT32
                        ? LabelKind.CLASSES : LabelKind.REGRESSION, 0);
    }
}
