package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.columns.Column;

/**
 * The categories of a column and their indices, for {@link FeatureVocabulary}. A value is read
 * as its unformatted text, so that an integer id column ({@code 17}) is a category like a text
 * one ({@code "17"}).
 */
final class CategoryCounts {

    /** Categories an embedded column may have: its indices are floats, exact up to 2^24. */
    static final int MAX_INDEXED = (1 << 24) - 1;

    private CategoryCounts() {}

    /**
     * How often each value of a column occurs, the missing value and {@code (other)} left out
     * (they take the other input, or index 0).
     */
    static Map<String, Integer> counts(Column<?> c) {
        Map<String, Integer> counts = new HashMap<>();
        for (int r = 0; r < c.size(); r++) {
            if (!c.isMissing(r)) {
                String v = c.getUnformattedString(r);
                if (!FeatureVocabulary.OTHER.equals(v)) {
                    counts.merge(v, 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** The values with their counts, most frequent first, ties by name. */
    static List<Map.Entry<String, Integer>> sorted(Map<String, Integer> counts) {
        List<Map.Entry<String, Integer>> e = new ArrayList<>(counts.entrySet());
        e.sort(Map.Entry.<String, Integer>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey()));
        return e;
    }

    /** Refuses a column with more categories than a float index can name exactly. */
    static void requireIndexable(String column, int categories) {
        if (categories > MAX_INDEXED) {
            throw new DmlException("Feature column '" + DmlException.literal(column) + "' has "
                    + categories + " distinct values, more than an embedding can index (at most "
                    + MAX_INDEXED + ").", "Map it to fewer categories first, or drop it.");
        }
    }

    /**
     * The index input of an embedded column: {@code i + 1} for {@code cats[i]}, 0 for a missing
     * or unseen value.
     */
    static FloatColumn indices(Column<?> c, List<String> cats, String name) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < cats.size(); i++) {
            index.put(cats.get(i), i + 1);
        }
        int n = c.size();
        float[] out = new float[n];
        for (int r = 0; r < n; r++) {
            Integer k = c.isMissing(r) ? null : index.get(c.getUnformattedString(r));
            out[r] = k == null ? 0f : k;
        }
        return FloatColumn.create(name, out);
    }
}
