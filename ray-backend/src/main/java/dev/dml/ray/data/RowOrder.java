package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.Arrays;
import java.util.Random;
import tech.tablesaw.api.Table;

/**
 * The order rows are trained in, as pure functions of the seed: which rows each worker's shard
 * holds ({@link #split}), and in which order a shard is read in each epoch ({@link #epoch}).
 * Nothing here depends on time, threads or the worker that computes it, so a worker that is
 * replaced, or steps redone from a snapshot or a checkpoint, read the same rows in the same
 * order as before.
 *
 * <p>With shuffling, the kernel deals the rows to the shards in a seeded random order once
 * (rows never move between workers later), and every worker reads its shard in a new seeded
 * order each epoch: step {@code t} of epoch {@code e} trains on rows {@code order[t*B ..
 * (t+1)*B)} of {@code epoch(seed, e, shard, rows)}. With stratification, each class is dealt
 * round-robin over the shards, so every shard has the table's class mix (counts differ by at
 * most 1 per class).
 */
public final class RowOrder {

    /** Salt of the split, so the split's permutation differs from the validation split's. */
    private static final long SPLIT_SALT = 0x5EED5B11L;

    private RowOrder() {}

    /**
     * Which rows each shard holds: {@code index[bounds[i] .. bounds[i+1])} are shard {@code i}'s
     * rows in the order it stores them.
     *
     * @param index table row numbers, every row once
     * @param bounds {@code shards + 1} boundaries into {@code index}
     */
    public record Split(int[] index, int[] bounds) {

        /**
         * Returns the rows of one shard.
         *
         * @param shard the shard
         * @return its table row numbers, in order
         */
        public int[] rowsOf(int shard) {
            return Arrays.copyOfRange(index, bounds[shard], bounds[shard + 1]);
        }
    }

    /**
     * Deals {@code rows} rows to {@code shards} shards whose sizes differ by at most 1.
     *
     * @param rows the table's rows
     * @param shards the number of shards, 1 to {@code rows}
     * @param shuffle deal in a seeded random order, else in table order (contiguous ranges)
     * @param classes each row's class, to stratify; null to not
     * @param seed the job's seed
     * @return the split
     */
    public static Split split(int rows, int shards, boolean shuffle, int[] classes, long seed) {
        int[] bounds = ArrowShards.rowBounds(rows, shards);
        int[] order = shuffle ? permutation(rows, seed ^ SPLIT_SALT) : identity(rows);
        if (classes == null) {
            return new Split(order, bounds);
        }
        // Sort by class (stable), then deal round-robin: shard s gets every shards-th row.
        int k = Arrays.stream(classes).max().orElse(0) + 1;
        int[] start = new int[k + 1];
        for (int c : classes) {
            start[c + 1]++;
        }
        for (int c = 0; c < k; c++) {
            start[c + 1] += start[c];
        }
        int[] byClass = new int[rows];
        for (int r : order) {
            byClass[start[classes[r]]++] = r;
        }
        for (int s = 0; s < shards; s++) { // round-robin sizes: the first shards get 1 more
            bounds[s + 1] = bounds[s] + (rows - s + shards - 1) / shards;
        }
        int[] index = new int[rows];
        int[] next = Arrays.copyOf(bounds, shards);
        for (int i = 0; i < rows; i++) {
            index[next[i % shards]++] = byClass[i];
        }
        if (!shuffle) {
            for (int s = 0; s < shards; s++) {
                Arrays.sort(index, bounds[s], bounds[s + 1]); // keep the table's order
            }
        }
        return new Split(index, bounds);
    }

    /**
     * Returns each row's class, for {@link #split}.
     *
     * @param table the table
     * @param selection its columns; the label holds classes
     * @return the class index of each row
     */
    public static int[] classes(Table table, ColumnSelection selection) {
        float[] labels = LabelClasses.values(table, selection);
        int[] out = new int[labels.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) labels[i];
        }
        return out;
    }

    /**
     * Returns the order a shard's rows are read in during one epoch: a permutation of {@code
     * 0..rows-1} that depends only on its arguments.
     *
     * @param seed the job's seed
     * @param epoch the epoch, from 0
     * @param shard the shard (the worker's data-parallel rank, or its replica)
     * @param rows the shard's rows
     * @return the positions within the shard, in reading order
     */
    public static int[] epoch(long seed, int epoch, int shard, int rows) {
        if (epoch < 0 || shard < 0) {
            throw new DmlException("Epoch " + epoch + " and shard " + shard + " must not be"
                    + " negative.", "Count epochs and shards from 0.");
        }
        return permutation(rows, mix(mix(seed, epoch), shard));
    }

    /**
     * A seeded shuffle of {@code 0..n-1} (Fisher-Yates with {@link Random}), the same on every
     * JVM.
     *
     * @param n the count
     * @param seed the seed
     * @return the permutation
     */
    public static int[] permutation(int n, long seed) {
        int[] p = identity(n);
        Random rnd = new Random(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static int[] identity(int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        return p;
    }

    /** SplitMix64's finaliser over a seed and a value: nearby inputs give unrelated seeds. */
    private static long mix(long seed, long value) {
        long z = seed + 0x9E3779B97F4A7C15L * (value + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
