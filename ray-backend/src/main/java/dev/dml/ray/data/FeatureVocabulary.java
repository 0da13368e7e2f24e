package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.Serializable;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * The categories of each text feature column, learnt on the training table, by which {@link
 * VocabularyEncoding} encodes a table. It travels with the model (in {@link ColumnSelection},
 * checkpoints and {@code dml-model.json}), so that every later table is encoded as the training
 * table was.
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
 * A column with more than {@code embedAbove} distinct values ({@code --embed-above}, default
 * {@link #DEFAULT_EMBED_ABOVE}), or one named to be embedded (the ids of an mf model, which may
 * be integers), is <em>embedded</em> instead: it becomes one input {@code c=(index)} holding
 * its category's index, {@code 1..n} for its {@code n} training values (most frequent first,
 * all of them kept), and the reserved index 0 for an unseen or missing value. The model learns
 * an embedding per index, and index 0 always embeds to zeros.
 *
 * <p>A plain {@link Serializable} class, not a record, so that Ray's serializer accepts it.
 */
public final class FeatureVocabulary implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Categories kept per column; the rest share the other input. */
    public static final int DEFAULT_MAX_CATEGORIES = 32;
    /** Distinct values beyond which a column is embedded, the default of {@code --embed-above}. */
    public static final int DEFAULT_EMBED_ABOVE =
            OptionValues.empty().get(TrainOptions.EMBED_ABOVE);
    /** The name of the input that takes rare, unseen and missing values. */
    public static final String OTHER = "(other)";
    /** The name suffix of an embedded column's one input, its category's index. */
    public static final String INDEX = "(index)";

    private static final FeatureVocabulary NONE =
            new FeatureVocabulary(new LinkedHashMap<>(), new HashSet<>());

    /** Column name to its categories, in input order; a LinkedHashMap of ArrayLists. */
    private final LinkedHashMap<String, ArrayList<String>> categories;
    /** The embedded columns, a subset of the keys of {@link #categories}. */
    private final HashSet<String> embedded;

    private FeatureVocabulary(LinkedHashMap<String, ArrayList<String>> categories,
            HashSet<String> embedded) {
        this.categories = categories;
        this.embedded = embedded;
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
     */
    public static FeatureVocabulary learn(Table table, ColumnSelection selection,
            int maxCategories) {
        return learn(table, selection, maxCategories, DEFAULT_EMBED_ABOVE, Set.of());
    }

    /**
     * Learns the categories of every text feature column of the training table, and of the
     * columns to embed whatever they hold.
     *
     * @param table the training table
     * @param selection the feature columns
     * @param maxCategories the categories kept per one-hot column, at least 1
     * @param embedAbove distinct values above which a text column is embedded, at least 1
     * @param embedAlways feature columns to embed whatever their type and size (an mf model's
     *     user and item ids)
     * @return the vocabulary, empty when no feature holds text and none is to be embedded
     */
    public static FeatureVocabulary learn(Table table, ColumnSelection selection,
            int maxCategories, int embedAbove, Collection<String> embedAlways) {
        if (embedAbove < 1) {
            throw new DmlException("{embed-above} must be at least 1, got " + embedAbove + ".",
                    "Pass 1 or more; the default is " + DEFAULT_EMBED_ABOVE + ".");
        }
        if (maxCategories < 1) {
            throw new DmlException("The most categories per column must be at least 1, got "
                    + maxCategories + ".", "Pass 1 or more; the default is "
                    + DEFAULT_MAX_CATEGORIES + ".");
        }
        LinkedHashMap<String, ArrayList<String>> out = new LinkedHashMap<>();
        HashSet<String> embed = new HashSet<>();
        for (String f : selection.features()) {
            if (!table.containsColumn(f)) {
                continue;
            }
            Column<?> c = table.column(f);
            boolean always = embedAlways.contains(f);
            if (always || isText(c)) {
                keep(out, embed, f, CategoryCounts.sorted(CategoryCounts.counts(c)), always,
                        maxCategories, embedAbove);
            }
        }
        return out.isEmpty() ? NONE : new FeatureVocabulary(out, embed);
    }

    /** Keeps a column's categories: all of them to embed it, the most frequent to one-hot. */
    private static void keep(LinkedHashMap<String, ArrayList<String>> out, Set<String> embed,
            String column, List<Map.Entry<String, Integer>> sorted, boolean always,
            int maxCategories, int embedAbove) {
        boolean embedded = always || sorted.size() > embedAbove;
        if (embedded) {
            CategoryCounts.requireIndexable(column, sorted.size());
            embed.add(column);
        }
        ArrayList<String> names = new ArrayList<>();
        int n = embedded ? sorted.size() : Math.min(maxCategories, sorted.size());
        for (int i = 0; i < n; i++) {
            names.add(sorted.get(i).getKey());
        }
        out.put(column, names);
    }

    /**
     * How often each value of a text column occurs, the missing value and {@code (other)} left
     * out: what {@link #fromCounts} merges over several tables.
     */
    static Map<String, Integer> counts(StringColumn c) {
        return CategoryCounts.counts(c);
    }

    /**
     * Learns the vocabulary from value counts gathered over several tables, as {@link
     * #learn(Table, ColumnSelection, int, int, Collection)} would on all of their rows.
     *
     * @param counts per text feature column, how often each value occurs
     * @param embedAbove distinct values above which a column is embedded
     * @return the vocabulary, empty when there are no text features
     */
    static FeatureVocabulary fromCounts(Map<String, Map<String, Integer>> counts,
            int embedAbove) {
        LinkedHashMap<String, ArrayList<String>> out = new LinkedHashMap<>();
        HashSet<String> embed = new HashSet<>();
        counts.forEach((col, c) -> keep(out, embed, col, CategoryCounts.sorted(c), false,
                DEFAULT_MAX_CATEGORIES, embedAbove));
        return out.isEmpty() ? NONE : new FeatureVocabulary(out, embed);
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
     * Tells whether a column is one-hot encoded or embedded.
     *
     * @param column the feature column
     * @return {@code true} when this vocabulary has its categories
     */
    public boolean encodes(String column) {
        return categories.containsKey(column);
    }

    /**
     * Tells whether a column is embedded: one input, its category's index.
     *
     * @param column the feature column
     * @return {@code true} when embedded, not one-hot
     */
    public boolean embeds(String column) {
        return embedded.contains(column);
    }

    /**
     * Returns the position of each embedded column's input among {@link #inputs}.
     *
     * @param features the feature columns, in order
     * @return the positions, increasing; empty when nothing is embedded
     */
    public int[] indexInputs(List<String> features) {
        List<Integer> at = new ArrayList<>();
        int pos = 0;
        for (String f : features) {
            if (embedded.contains(f)) {
                at.add(pos);
            }
            List<String> cats = categories.get(f);
            pos += cats == null || embedded.contains(f) ? 1 : cats.size() + 1;
        }
        return at.stream().mapToInt(Integer::intValue).toArray();
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
     * {@code c=v} for each category of a one-hot column, then {@code c=(other)}, and {@code
     * c=(index)} for an embedded column.
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
            if (embedded.contains(f)) {
                out.add(f + "=" + INDEX);
                continue;
            }
            cats.forEach(v -> out.add(f + "=" + v));
            out.add(f + "=" + OTHER);
        }
        return out;
    }

    /**
     * Tells, for each input of {@link #inputs}, whether it encodes a category (one-hot or an
     * index): such an input is not standardised.
     *
     * @param features the feature columns, in order
     * @return one flag per input
     */
    boolean[] categorical(List<String> features) {
        List<Boolean> flags = new ArrayList<>();
        for (String f : features) {
            List<String> cats = categories.get(f);
            int width = cats == null || embedded.contains(f) ? 1 : cats.size() + 1;
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

    /** A column's categories in input order, or null when it is numeric; not a copy. */
    List<String> categoriesOf(String column) {
        return categories.get(column);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeatureVocabulary v && categories.equals(v.categories)
                && embedded.equals(v.embedded);
    }

    @Override
    public int hashCode() {
        return categories.hashCode();
    }

    @Override
    public String toString() {
        return "FeatureVocabulary" + categories + (embedded.isEmpty() ? "" : ", embedded "
                + new java.util.TreeSet<>(embedded));
    }
}
