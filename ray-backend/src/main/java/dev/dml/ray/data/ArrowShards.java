package dev.dml.ray.data;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import java.util.ArrayList;
import java.util.List;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Encodes a Tablesaw table as Arrow IPC stream shards, one {@code byte[]} per worker.
 *
 * <p>Every method validates the table first ({@link TableValidator}) and throws a {@link
 * DmlException} before encoding anything. The columns are read once; each shard is then written
 * in one pass straight into an exactly sized heap {@code byte[]} (no off-heap memory), ready for
 * Ray's object store.
 *
 * <pre>{@code
 * List<byte[]> shards = ArrowShards.splitByRows(table, selection, 4);
 * }</pre>
 */
public final class ArrowShards {

    private ArrowShards() {}

    /**
     * Encodes the whole table as one shard.
     *
     * @param table the table
     * @param selection the feature and label columns
     * @return the Arrow IPC stream bytes
     */
    public static byte[] encode(Table table, ColumnSelection selection) {
        ShardEncoder enc = new ShardEncoder(table, selection);
        return enc.encode(null, 0, enc.rows());
    }

    /**
     * Splits the table into {@code shards} contiguous row ranges whose sizes differ by at most 1.
     *
     * @param table the table
     * @param selection the feature and label columns
     * @param shards the number of shards (workers), at least 1 and at most the row count
     * @return one IPC stream per shard, in row order
     */
    public static List<byte[]> splitByRows(Table table, ColumnSelection selection, int shards) {
        return split(table, selection, RowOrder.split(table.rowCount(), shards, false, null, 0));
    }

    /**
     * Encodes the shards of a split: shard {@code i} holds the rows {@link RowOrder.Split#rowsOf}
     * names, in that order.
     *
     * @param table the table
     * @param selection the feature and label columns
     * @param split which rows each shard holds
     * @return one IPC stream per shard
     */
    public static List<byte[]> split(Table table, ColumnSelection selection,
            RowOrder.Split split) {
        ShardEncoder enc = new ShardEncoder(table, selection);
        int[] b = split.bounds();
        List<byte[]> out = new ArrayList<>(b.length - 1);
        for (int i = 0; i + 1 < b.length; i++) {
            out.add(enc.encode(split.index(), b[i], b[i + 1]));
        }
        return out;
    }

    /**
     * Splits the table by consistent hashing of a key column: all rows with the same key go to
     * the same shard, in every run, and adding a worker moves only about {@code 1/N} of the rows.
     * Rows keep their table order within a shard. A shard may be empty when there are few keys.
     *
     * @param table the table
     * @param selection the feature and label columns
     * @param keyColumn the column whose string value is hashed (need not be a feature)
     * @param ring the ring that maps keys to shards
     * @return one IPC stream per worker of the ring
     */
    public static List<byte[]> splitByKey(
            Table table, ColumnSelection selection, String keyColumn, HashRing ring) {
        ShardEncoder enc = new ShardEncoder(table, selection);
        int[] owner = ownersByKey(table, keyColumn, ring);
        int n = ring.workers();
        int[] counts = new int[n + 1];
        for (int w : owner) {
            counts[w + 1]++;
        }
        for (int i = 0; i < n; i++) {
            counts[i + 1] += counts[i];
        }
        int[] index = new int[owner.length];
        int[] next = counts.clone();
        for (int r = 0; r < owner.length; r++) {
            index[next[owner[r]]++] = r;
        }
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(enc.encode(index, counts[i], counts[i + 1]));
        }
        return out;
    }

    /**
     * Returns, for each row, the worker that owns the row's key.
     *
     * @param table the table
     * @param keyColumn the key column
     * @param ring the hash ring
     * @return the owning worker of each row
     */
    public static int[] ownersByKey(Table table, String keyColumn, HashRing ring) {
        if (!table.containsColumn(keyColumn)) {
            throw new DmlException(
                    "Key column '" + keyColumn + "' is not in the table.",
                    Suggestions.didYouMean(keyColumn, table.columnNames())
                            + "Available columns: " + String.join(", ", table.columnNames())
                            + ".");
        }
        Column<?> key = table.column(keyColumn);
        int[] owner = new int[table.rowCount()];
        for (int r = 0; r < owner.length; r++) {
            if (key.isMissing(r)) {
                throw new DmlException(
                        "Key column '" + keyColumn + "' has a missing value at row " + r + ".",
                        "Fill or drop rows without a key before splitting by key.");
            }
            owner[r] = ring.workerFor(key.getUnformattedString(r));
        }
        return owner;
    }

    /**
     * Returns the {@code shards + 1} boundaries of contiguous row ranges: shard {@code i} holds
     * rows {@code [b[i], b[i+1])}, and sizes differ by at most 1.
     *
     * @param rows the number of rows
     * @param shards the number of shards, between 1 and {@code rows}
     * @return the boundaries, starting at 0 and ending at {@code rows}
     */
    public static int[] rowBounds(int rows, int shards) {
        if (shards < 1) {
            throw new DmlException(
                    "Cannot split into " + shards + " shards.", "Pass at least 1 shard.");
        }
        if (shards > rows) {
            throw new DmlException(
                    "Cannot split " + rows + " rows into " + shards + " shards.",
                    "Use at most " + rows + " workers, or more data.");
        }
        int[] b = new int[shards + 1];
        for (int i = 0; i <= shards; i++) {
            b[i] = (int) ((long) i * rows / shards);
        }
        return b;
    }
}
