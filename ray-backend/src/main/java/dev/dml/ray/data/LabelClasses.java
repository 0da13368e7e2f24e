package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Class names in a label column (text such as {@code "malignant"} and {@code "benign"}), as
 * scikit-learn's {@code LabelEncoder} and Spark's {@code StringIndexer} take them: the names
 * are learnt on the training table, sorted, and class {@code i} is the {@code i}-th name. Rows
 * of another table (validation) must hold names the training table held.
 */
public final class LabelClasses {

    private LabelClasses() {}

    /**
     * Tells whether a label column holds class names (text), not numbers.
     *
     * @param table the table
     * @param label the label column
     * @return {@code true} for a text column
     */
    public static boolean holdsNames(Table table, String label) {
        return table.containsColumn(label) && !Columns.isNumeric(table.column(label));
    }

    /**
     * Learns the class names of a text label: its distinct values, sorted.
     *
     * @param table the training table
     * @param label the label column
     * @return the names; class {@code i} is element {@code i}
     * @throws DmlException when a row has no label
     */
    public static List<String> learn(Table table, String label) {
        Column<?> c = table.column(label);
        TreeSet<String> names = new TreeSet<>();
        for (int r = 0; r < c.size(); r++) {
            names.add(name(c, r));
        }
        return List.copyOf(names);
    }

    /**
     * Returns each row's label as a number: its class index when the selection has class names,
     * else the column's value.
     *
     * @param table the table
     * @param selection the columns, with a label
     * @return one value per row
     * @throws DmlException naming the first row whose class the training table did not hold
     */
    static float[] values(Table table, ColumnSelection selection) {
        Column<?> c = table.column(selection.label());
        List<String> names = selection.classNames();
        if (names.isEmpty()) {
            return Columns.floats(c);
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            index.put(names.get(i), i);
        }
        float[] out = new float[c.size()];
        for (int r = 0; r < out.length; r++) {
            Integer k = index.get(name(c, r));
            if (k == null) {
                throw new DmlException("Label column '" + DmlException.literal(c.name())
                        + "' has class '" + DmlException.literal(c.getUnformattedString(r))
                        + "' at row " + r + ", which the training rows do not have.",
                        "The model knows " + shown(names) + "; drop or relabel those rows.");
            }
            out[r] = k;
        }
        return out;
    }

    private static String name(Column<?> c, int r) {
        if (c.isMissing(r) || c.getUnformattedString(r).isBlank()) {
            throw new DmlException("Label column '" + DmlException.literal(c.name())
                    + "' has no value at row " + r + ".", "Fill or drop the rows without a"
                    + " label first, for example table.dropRowsWithMissingValues().");
        }
        return c.getUnformattedString(r);
    }

    /** The names, at most 10 of them. */
    static String shown(List<String> names) {
        int max = 10;
        String s = "'" + String.join("', '", names.subList(0, Math.min(max, names.size()))) + "'";
        return names.size() > max ? s + " and " + (names.size() - max) + " more" : s;
    }
}
