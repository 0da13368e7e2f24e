package dev.dml.ray.data;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import tech.tablesaw.api.Table;

/**
 * Holds a validated table's selected columns as float arrays and writes any subset of rows as one
 * shard (an Arrow IPC stream, see {@link ShardFormat}). Columns are read from Tablesaw once,
 * however many shards follow.
 */
final class ShardEncoder {

    /** Floats per transposition block: keeps the row-major scratch buffer in L1/L2 cache. */
    private static final int BLOCK_FLOATS = 8192;

    private final float[][] features;
    private final float[] labels;
    private final boolean classLabels;
    private final int rows;
    private final int classes;
    private final IpcWriter writer;

    ShardEncoder(Table table, ColumnSelection selection) {
        this.classes = TableValidator.validate(table, selection);
        this.rows = table.rowCount();
        this.features = new float[selection.featureCount()][];
        for (int c = 0; c < features.length; c++) {
            features[c] = Columns.floats(table.column(selection.features().get(c)));
        }
        this.labels = selection.hasLabel() ? Columns.floats(table.column(selection.label())) : null;
        this.classLabels = selection.labelKind() == LabelKind.CLASSES;
        this.writer = new IpcWriter(
                ShardFormat.schema(selection.features(), selection.labelKind(), classes),
                selection.hasLabel());
    }

    int rows() {
        return rows;
    }

    int classes() {
        return classes;
    }

    /** Encodes rows {@code from..to-1}, or {@code index[from..to-1]} when index is non-null. */
    byte[] encode(int[] index, int from, int to) {
        int n = to - from;
        return writer.write(n, features.length, new IpcWriter.Body() {
            @Override
            public void features(ByteBuffer dst) {
                fillFeatures(dst.asFloatBuffer(), index, from, n);
            }

            @Override
            public void labels(ByteBuffer dst) {
                if (classLabels) {
                    fillLabels(dst.asIntBuffer(), index, from, n);
                } else {
                    fillLabels(dst.asFloatBuffer(), index, from, n);
                }
            }
        });
    }

    /** Writes rows row-major into {@code dst} from its position, transposing in blocks. */
    void fillFeatures(FloatBuffer dst, int[] index, int from, int n) {
        int f = features.length;
        int blockRows = Math.max(8, BLOCK_FLOATS / Math.max(1, f));
        float[] block = new float[blockRows * f];
        for (int start = 0; start < n; start += blockRows) {
            int len = Math.min(blockRows, n - start);
            for (int c = 0; c < f; c++) {
                float[] col = features[c];
                if (index == null) {
                    int base = from + start;
                    for (int r = 0; r < len; r++) {
                        block[r * f + c] = col[base + r];
                    }
                } else {
                    for (int r = 0; r < len; r++) {
                        block[r * f + c] = col[index[from + start + r]];
                    }
                }
            }
            dst.put(block, 0, len * f);
        }
    }

    /** Writes class labels into {@code dst} at indices {@code 0..n-1}. */
    void fillLabels(IntBuffer dst, int[] index, int from, int n) {
        for (int r = 0; r < n; r++) {
            dst.put(r, (int) labels[index == null ? from + r : index[from + r]]);
        }
    }

    /** Writes real labels into {@code dst} at indices {@code 0..n-1}. */
    void fillLabels(FloatBuffer dst, int[] index, int from, int n) {
        for (int r = 0; r < n; r++) {
            dst.put(r, labels[index == null ? from + r : index[from + r]]);
        }
    }
}
