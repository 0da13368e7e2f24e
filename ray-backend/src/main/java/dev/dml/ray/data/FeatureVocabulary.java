package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * The categories of each text feature column, learnt on the training table, and their one-hot
 * encoding. It travels with the model (in {@link ColumnSelection}, checkpoints and {@code
 * dml-model.json}), so that every later table is encoded as the training table was.
 *
 * <p>A text column {@code c} becomes the inputs {@code c=v1, c=v2, ..., c=(other)}:
 * <ul>
 *   <li>the categories are the column's values in the training rows, the most frequent first
 *       (ties by name), at most {@link #DEFAULT_MAX_CATEGORIES} of them;
 *   <li>the rarer values, any value the training rows did not hold, and a missing value (an
 *       empty string) all go to the one shared {@code c=(other)} input;
 *   <li>each row has exactly one of a column's inputs set to 1, the others 0. One-hot inputs
 *       are not standardised ({@link FeatureStats} gives them mean 0 and standard deviation 1).
 * </ul>
 * A column with more than {@link #MAX_DISTINCT} distinct values (an id, a free text) is refused:
 * a one-hot encoding of it would be huge and learn little.
 *
 * <p>A plain {@link Serializable} class, not a record, so that Ray's serializer accepts it.
 */
public final class FeatureVocabulary implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Categories kept per column; the rest share the other input. */
    public static final int DEFAULT_MAX_CATEGORIES = 32;
    /** Distinct values beyond which a column is refused as id-like. */
    public static final int MAX_DISTINCT = 1000;
    /** The name of the input that takes rare, unseen and missing values. */
    public static final String OTHER = "(other)";

    private static final FeatureVocabulary NONE = new FeatureVocabulary(new LinkedHashMap<>());

    /** Column name to its categories, in input order; a LinkedHashMap of ArrayLists. */
    private final LinkedHashMap<String, ArrayList<String>> categories;

    private FeatureVocabulary(LinkedHashMap<String, ArrayList<String>> categories) {
        this.categories = categories;
    }

    /**
     * Returns the vocabulary of a selection without text features.
     *
     * @return the empty vocabulary
     */
    public static FeatureVocabulary none() {
        return NONE;
    }

    /**
     * Tells whether a column holds text that this class can encode.
     *
     * @param c the column
     * @return {@code true} for a string column
     */
    public static boolean isText(Column<?> c) {
        return c instanceof StringColumn;
    }

    /**
     * Learns the categories of every text feature column of the training table, with {@link
     * #DEFAULT_MAX_CATEGORIES} per column.
     *
     * @param table the training table
     * @param selection the feature columns; columns missing from the table are skipped (the
     *     table validator names them)
     * @return the vocabulary, empty when no feature holds text
     * @throws DmlException when a column has more than {@link #MAX_DISTINCT} distinct values
     */
    public static FeatureVocabulary learn(Table table, ColumnSelection selection) {
        return learn(table, selection, DEFAULT_MAX_CATEGORIES);
    }

    /**
     * Learns the categories of every text feature column of the training table.
     *
     * @param table the training table
     * @param selection the feature columns
     * @param maxCategories the categories kept per column, at least 1
     * @return the vocabulary, empty when no feature holds text
     * @throws DmlException when a column has more than {@link #MAX_DISTINCT} distinct values
     */
    public static FeatureVocabulary learn(Table table, ColumnSelection selection,
            int maxCategories) {
        if (maxCategories < 1) {
            throw new DmlException("The most categories per column must be at least 1, got "
                    + maxCategories + ".", "Pass 1 or more; the default is "
                    + DEFAULT_MAX_CATEGORIES + ".");
        }
        LinkedHashMap<String, ArrayList<String>> out = new LinkedHashMap<>();
        for (String f : selection.features()) {
            if (table.containsColumn(f) && isText(table.column(f))) {
                out.put(f, ordered((StringColumn) table.column(f), maxCategories));
            }
        }
        return out.isEmpty() ? NONE : new FeatureVocabulary(out);
    }

    /** The column's values, most frequent first, ties by name; the missing value left out. */
    private static ArrayList<String> ordered(StringColumn c, int max) {
        return ordered(c.name(), counts(c), max);
    }

    /** How often each value of a text column occurs, the missing value left out. */
    static Map<String, Integer> counts(StringColumn c) {
        Map<String, Integer> counts = new HashMap<>();
        for (int r = 0; r < c.size(); r++) {
            if (!c.isMissing(r) && !OTHER.equals(c.get(r))) { // "(other)" is the other input
                counts.merge(c.get(r), 1, Integer::sum);
            }
        }
        return counts;
    }

    /**
     * Learns the vocabulary from value counts gathered over several tables, as {@link
     * #learn(Table, ColumnSelection)} would on all of their rows.
     *
     * @param counts per text feature column, how often each value occurs
     * @return the vocabulary, empty when there are no text features
     */
    static FeatureVocabulary fromCounts(Map<String, Map<String, Integer>> counts) {
        LinkedHashMap<String, ArrayList<String>> out = new LinkedHashMap<>();
        counts.forEach((col, c) -> out.put(col, ordered(col, c, DEFAULT_MAX_CATEGORIES)));
        return out.isEmpty() ? NONE : new FeatureVocabulary(out);
    }

    private static ArrayList<String> ordered(String column, Map<String, Integer> counts,
            int max) {
        if (counts.size() > MAX_DISTINCT) {
            throw new DmlException("Feature column '" + DmlException.literal(column) + "' has "
                    + counts.size() + " distinct values, too many to one-hot encode (at most "
                    + MAX_DISTINCT + "); it looks like an id or free text.",
                    "Drop it from the features, or map it to fewer categories first.");
        }
        List<Map.Entry<String, Integer>> e = new ArrayList<>(counts.entrySet());
        e.sort(Map.Entry.<String, Integer>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey()));
        ArrayList<String> names = new ArrayList<>();
        for (int i = 0; i < Math.min(max, e.size()); i++) {
            names.add(e.get(i).getKey());
        }
        return names;
    }

    /**
     * Tells whether no column is encoded.
     *
     * @return {@code true} when no feature held text
     */
    public boolean isEmpty() {
        return categories.isEmpty();
    }

    /**
     * Tells whether a column is one-hot encoded.
     *
     * @param column the feature column
     * @return {@code true} when this vocabulary has its categories
     */
    public boolean encodes(String column) {
        return categories.containsKey(column);
    }

    /**
     * Returns the categories of each encoded column, in input order (the other input follows
     * them).
     *
     * @return column name to categories, unmodifiable
     */
    public Map<String, List<String>> categories() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        categories.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return Collections.unmodifiableMap(out);
    }

    /**
     * Returns the model's input names for these feature columns: a numeric column's own name,
     * and {@code c=v} for each category of a text column, then {@code c=(other)}.
     *
     * @param features the feature columns, in order
     * @return the input names, in the order the model reads them
     */
    public List<String> inputs(List<String> features) {
        List<String> out = new ArrayList<>();
        for (String f : features) {
            List<String> cats = categories.get(f);
            if (cats == null) {
                out.add(f);
                continue;
            }
            cats.forEach(v -> out.add(f + "=" + v));
            out.add(f + "=" + OTHER);
        }
        return out;
    }

    /**
     * Tells, for each input of {@link #inputs}, whether it is one-hot.
     *
     * @param features the feature columns, in order
     * @return one flag per input
     */
    boolean[] oneHot(List<String> features) {
        List<Boolean> flags = new ArrayList<>();
        for (String f : features) {
            List<String> cats = categories.get(f);
            int width = cats == null ? 1 : cats.size() + 1;
            for (int i = 0; i < width; i++) {
                flags.add(cats != null);
            }
        }
        boolean[] out = new boolean[flags.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = flags.get(i);
        }
        return out;
    }

    /**
     * Returns the table of a selection's inputs: {@code table} itself without text features,
     * else a table with the text features one-hot encoded by the selection's vocabulary.
     *
     * @param table a validated table
     * @param selection the columns; its label is kept when it has one
     * @return the table whose columns {@link ColumnSelection#inputs()} name
     * @throws DmlException when a text feature has no learnt categories
     */
    static Table inputsOf(Table table, ColumnSelection selection) {
        FeatureVocabulary v = selection.vocabulary();
        for (String f : selection.features()) {
            if (isText(table.column(f)) && !v.encodes(f)) {
                throw new DmlException("Feature column '" + DmlException.literal(f) + "' holds"
                        + " text, but no categories were learnt for it.", "Train through"
                        + " TrainSpec, which learns them, or pass selection.withVocabulary("
                        + "FeatureVocabulary.learn(trainingTable, selection)).");
            }
        }
        return v.isEmpty() ? table
                : v.encode(table, selection.features(), selection.label());
    }

    /**
     * Returns a table of the model's inputs (numeric columns as they are, text columns as
     * float one-hot columns), and the label column when {@code label} is not null. The numeric
     * columns are shared with {@code table}, not copied.
     *
     * @param table a validated table
     * @param features the feature columns
     * @param label the label column to keep, or {@code null}
     * @return a new table
     */
    Table encode(Table table, List<String> features, String label) {
        Table out = Table.create(table.name());
        for (String f : features) {
            Column<?> c = table.column(f);
            List<String> cats = categories.get(f);
            if (cats == null) {
                out.addColumns(c);
                continue;
            }
            if (!isText(c)) {
                throw new DmlException("Feature column '" + DmlException.literal(f) + "' holds "
                        + c.type().name() + " values, but the model learnt it as text.",
                        "Pass the column as text, as in the training table.");
            }
            out.addColumns(oneHot((StringColumn) c, cats));
        }
        if (label != null) {
            out.addColumns(table.column(label));
        }
        return out;
    }

    private static FloatColumn[] oneHot(StringColumn c, List<String> cats) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < cats.size(); i++) {
            index.put(cats.get(i), i);
        }
        int n = c.size();
        float[][] cols = new float[cats.size() + 1][n];
        for (int r = 0; r < n; r++) {
            Integer k = c.isMissing(r) ? null : index.get(c.get(r));
            cols[k == null ? cats.size() : k][r] = 1f;
        }
        FloatColumn[] out = new FloatColumn[cols.length];
        for (int i = 0; i < cols.length; i++) {
            String v = i < cats.size() ? cats.get(i) : OTHER;
            out[i] = FloatColumn.create(c.name() + "=" + v, cols[i]);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeatureVocabulary && categories.equals(((FeatureVocabulary) o)
                .categories);
    }

    @Override
    public int hashCode() {
        return categories.hashCode();
    }

    @Override
    public String toString() {
        return "FeatureVocabulary" + categories;
    }
}
