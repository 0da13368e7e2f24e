package dev.dml.ray.data;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Writes any subset of a validated table's rows as one shard (an Arrow IPC stream, see {@link
 * ShardFormat}), or row-major into a caller's buffer.
 *
 * <p>The features go from the Tablesaw columns to the destination in one pass: each value is
 * read from its column, checked, converted to float32 and transposed, a cache-sized tile of rows
 * and columns at a time, then copied out a band of rows at a time. The check is the feature half
 * of {@link TableValidator}: the constructor runs every other check, and a missing or non-finite
 * feature value found while encoding throws exactly the exception {@link TableValidator#validate}
 * throws. The bytes encoded so far are then dropped, so nothing has left the kernel.
 */
final class ShardEncoder {

    /**
     * Floats per transposition tile (16 KiB): the tile stays in L1 cache while the values of up
     * to {@link #TILE_COLUMNS} columns are written into it at a stride.
     */
    static final int TILE_FLOATS = 4096;

    /** Columns per tile: each column is then read in runs of about 128 values. */
    static final int TILE_COLUMNS = 32;

    private static final byte DOUBLE = 0;
    private static final byte FLOAT = 1;
    private static final byte OTHER = 2;

    private final Table table;
    private final ColumnSelection selection;
    private final Column<?>[] features;
    private final byte[] kinds;
    private final float[] labels;
    private final boolean classLabels;
    private final int rows;
    private final int classes;
    private final IpcWriter writer;

    ShardEncoder(Table table, ColumnSelection selection) {
        this.classes = TableValidator.validateAllButFeatureValues(table, selection);
        // text features become one-hot float columns here; the rest of the encoder sees numbers
        this.table = VocabularyEncoding.inputsOf(table, selection);
        this.selection = selection.encoded();
        table = this.table;
        selection = this.selection;
        this.rows = table.rowCount();
        this.features = new Column<?>[selection.featureCount()];
        this.kinds = new byte[features.length];
        for (int c = 0; c < features.length; c++) {
            Column<?> col = table.column(selection.features().get(c));
            features[c] = col;
            kinds[c] = col instanceof DoubleColumn ? DOUBLE : col instanceof FloatColumn ? FLOAT
                    : OTHER;
        }
        this.labels = selection.hasLabel() ? LabelClasses.values(table, selection) : null;
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

    /**
     * Writes rows row-major into {@code dst} from its position, which then moves past them.
     *
     * @throws dev.dml.DmlException when a feature value is missing or not finite
     */
    void fillFeatures(FloatBuffer dst, int[] index, int from, int n) {
        int f = features.length;
        int pos = dst.position();
        fillPart(dst, pos, index, from, 0, n);
        dst.position(pos + n * f);
    }

    /**
     * Writes rows {@code start..end-1} of the range at {@code pos + start * f} in {@code dst}, a
     * band of rows at a time. Each band is filled one tile of columns at a time: the tile's
     * columns are read and transposed into a tile that fits in L1 cache, whose rows are then
     * copied into the band; the band goes to {@code dst} in one bulk copy.
     */
    private void fillPart(FloatBuffer dst, int pos, int[] index, int from, int start, int end) {
        int f = features.length;
        int tileCols = Math.max(1, Math.min(f, TILE_COLUMNS));
        int bandRows = Math.max(8, TILE_FLOATS / tileCols);
        float[] band = new float[Math.min(bandRows, end - start) * f];
        float[] tile = tileCols < f ? new float[bandRows * tileCols] : null;
        for (int s = start; s < end; s += bandRows) {
            int len = Math.min(bandRows, end - s);
            for (int c0 = 0; c0 < f; c0 += tileCols) {
                int w = Math.min(tileCols, f - c0);
                if (tile == null) {
                    for (int c = 0; c < f; c++) {
                        if (!transposeColumn(c, band, f, c, index, from + s, len)) {
                            throw nonFinite();
                        }
                    }
                    continue;
                }
                for (int c = c0; c < c0 + w; c++) {
                    if (!transposeColumn(c, tile, w, c - c0, index, from + s, len)) {
                        throw nonFinite();
                    }
                }
                for (int r = 0; r < len; r++) {
                    System.arraycopy(tile, r * w, band, r * f + c0, w);
                }
            }
            dst.put(pos + s * f, band, 0, len * f);
        }
    }

    /**
     * Writes {@code len} values of column {@code c}, from row {@code first} (or {@code
     * index[first]...}), into {@code out} from {@code offset} at stride {@code stride}. Returns
     * false when one of them is missing or not finite.
     */
    private boolean transposeColumn(int c, float[] out, int stride, int offset, int[] index,
            int first, int len) {
        Column<?> col = features[c];
        switch (kinds[c]) {
            case DOUBLE: {
                DoubleColumn d = (DoubleColumn) col;
                for (int r = 0, o = offset; r < len; r++, o += stride) {
                    float v = (float) d.getDouble(index == null ? first + r : index[first + r]);
                    if (!Float.isFinite(v)) {
                        return false; // NaN, infinite, or past float range
                    }
                    out[o] = v;
                }
                break;
            }
            case FLOAT: {
                FloatColumn fc = (FloatColumn) col;
                for (int r = 0, o = offset; r < len; r++, o += stride) {
                    float v = fc.getFloat(index == null ? first + r : index[first + r]);
                    if (!Float.isFinite(v)) {
                        return false;
                    }
                    out[o] = v;
                }
                break;
            }
            default:
                for (int r = 0, o = offset; r < len; r++, o += stride) {
                    float v = (float) Columns.value(col, index == null ? first + r
                            : index[first + r]);
                    if (!Float.isFinite(v)) {
                        return false;
                    }
                    out[o] = v;
                }
        }
        return true;
    }

    /** The exception {@link TableValidator} throws for the table's first non-finite feature. */
    private RuntimeException nonFinite() {
        TableValidator.validate(table, selection);
        return new IllegalStateException("The encoder found a non-finite feature value that"
                + " TableValidator accepts; this is a bug in dml.");
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
