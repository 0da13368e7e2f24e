package dev.dml.ray.model;

import dev.dml.DmlException;
import java.io.Serializable;
import java.util.Arrays;

/**
 * Which of a model's inputs are category indices to embed, and how: for each, its position in
 * the input row, its number of rows (the categories plus index 0, which takes unseen and missing
 * values and always embeds to zeros) and its width.
 *
 * <p>A plain {@link Serializable} class, not a record, so that it crosses Ray inside a {@link
 * ModelSpec}.
 *
 * <pre>{@code
 * Embeddings e = Embeddings.none().add(0, 1 + users, 16).add(1, 1 + items, 16);
 * }</pre>
 */
public final class Embeddings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Rows an index input may address: a float holds every integer up to 2^24 exactly. */
    public static final int MAX_ROWS = 1 << 24;

    /** The widest embedding the default width rule gives. */
    public static final int MAX_DEFAULT_WIDTH = 16;

    private static final Embeddings NONE = new Embeddings(new int[0], new int[0], new int[0]);

    private final int[] positions;
    private final int[] rows;
    private final int[] widths;

    private Embeddings(int[] positions, int[] rows, int[] widths) {
        this.positions = positions;
        this.rows = rows;
        this.widths = widths;
    }

    /** @return no embedded input */
    public static Embeddings none() {
        return NONE;
    }

    /**
     * The default width for {@code categories} categories, {@code 1.6 x categories^0.56} (the
     * rule of thumb fast.ai uses) at most {@link #MAX_DEFAULT_WIDTH}.
     *
     * @param categories the number of categories
     * @return the width, at least 2
     */
    public static int defaultWidth(int categories) {
        int w = (int) Math.round(1.6 * Math.pow(Math.max(1, categories), 0.56));
        return Math.max(2, Math.min(MAX_DEFAULT_WIDTH, w));
    }

    /**
     * Returns these embeddings and one more, for the input at {@code position}.
     *
     * @param position the input's index in the row, after the earlier embedded ones
     * @param tableRows the embedding's rows: the categories plus the reserved index 0
     * @param width the embedding's width
     * @return a new instance
     */
    public Embeddings add(int position, int tableRows, int width) {
        ModelSpecChecks.positive(width, "embedding width");
        if (tableRows < 2 || tableRows > MAX_ROWS) {
            throw new DmlException("An embedding needs 2 to " + MAX_ROWS + " rows (its"
                    + " categories and the reserved index 0), got " + tableRows + ".",
                    "Embed a column with at least one and fewer than " + MAX_ROWS
                            + " categories.");
        }
        if (positions.length > 0 && position <= positions[positions.length - 1]) {
            throw new IllegalArgumentException("positions must increase: " + position);
        }
        int n = positions.length;
        int[] p = Arrays.copyOf(positions, n + 1);
        int[] r = Arrays.copyOf(rows, n + 1);
        int[] w = Arrays.copyOf(widths, n + 1);
        p[n] = position;
        r[n] = tableRows;
        w[n] = width;
        return new Embeddings(p, r, w);
    }

    /** @return true when no input is embedded */
    public boolean isEmpty() {
        return positions.length == 0;
    }

    /** @return the number of embedded inputs */
    public int size() {
        return positions.length;
    }

    /** @return each embedded input's position in the row */
    public int[] positions() {
        return positions.clone();
    }

    /** @return each embedding's rows */
    public int[] rows() {
        return rows.clone();
    }

    /** @return each embedding's width */
    public int[] widths() {
        return widths.clone();
    }

    /**
     * The width of a row once each index input is replaced by its embedding.
     *
     * @param inputs the model's input width
     * @return the embedded width
     */
    public int embeddedWidth(int inputs) {
        return inputs - positions.length + Arrays.stream(widths).sum();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Embeddings e && Arrays.equals(positions, e.positions)
                && Arrays.equals(rows, e.rows) && Arrays.equals(widths, e.widths);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(positions) * 31 + Arrays.hashCode(rows) * 7
                + Arrays.hashCode(widths);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("embed[");
        for (int i = 0; i < positions.length; i++) {
            b.append(i > 0 ? ", " : "").append(positions[i]).append(':').append(rows[i])
                    .append('x').append(widths[i]);
        }
        return b.append(']').toString();
    }
}
