package dev.dml.ray.data;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import java.util.List;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Checks a table against a {@link ColumnSelection} before anything is encoded or started.
 *
 * <p>Each problem is reported as a {@link DmlException} whose first line names the column (and
 * the first bad row) and whose hint says how to fix it. Checks run in this order: empty table,
 * missing columns, columns neither numeric nor text, missing or non-finite numbers, label values
 * that are not class indices.
 */
public final class TableValidator {

    private TableValidator() {}

    /**
     * Validates {@code table} for {@code selection}.
     *
     * @param table the input table
     * @param selection the feature and label columns
     * @return the number of classes ({@code max label + 1}) for a {@link LabelKind#CLASSES}
     *     label, {@code 0} otherwise
     * @throws DmlException on the first problem found
     */
    public static int validate(Table table, ColumnSelection selection) {
        return validate(table, selection, true);
    }

    /**
     * Runs every check except the scan of the feature values, which {@link ShardEncoder} does
     * while it encodes (one pass instead of two). When a check fails, the full validation runs,
     * so the exception is the same one {@link #validate(Table, ColumnSelection)} throws first.
     *
     * @return the number of classes, as {@link #validate(Table, ColumnSelection)} returns it
     */
    static int validateAllButFeatureValues(Table table, ColumnSelection selection) {
        try {
            return validate(table, selection, false);
        } catch (DmlException e) {
            validate(table, selection, true);
            throw e;
        }
    }

    private static int validate(Table table, ColumnSelection selection, boolean featureValues) {
        String tableName = table.name() == null || table.name().isBlank() ? "table" : table.name();
        if (table.rowCount() == 0) {
            throw new DmlException(
                    "The " + quoted(tableName) + " has no rows.",
                    "Load some data first; a model cannot be trained on an empty table.");
        }
        List<String> available = table.columnNames();
        for (String f : selection.features()) {
            requirePresent(table, tableName, f, "Feature", available);
        }
        if (selection.hasLabel()) {
            requirePresent(table, tableName, selection.label(), "Label", available);
        }
        for (String f : selection.features()) {
            Column<?> c = table.column(f);
            if (FeatureVocabulary.isText(c)) {
                continue; // one-hot encoded; a missing value goes to the other input
            }
            if (!Columns.isNumeric(c)) {
                throw new DmlException(
                        "Feature column '" + f + "' holds " + c.type().name()
                                + " values, not numbers or text.",
                        "Convert it to numbers or text first, or remove it from the features.");
            }
            if (featureValues) {
                requireFinite(c, "Feature");
            }
        }
        if (!selection.hasLabel()) {
            return 0;
        }
        Column<?> label = table.column(selection.label());
        if (!Columns.isNumeric(label) && !selection.classNames().isEmpty()) {
            LabelClasses.values(table, selection); // names the first class not learnt
            return selection.classNames().size();
        }
        if (!Columns.isNumeric(label)) {
            throw new DmlException(
                    "Label column '" + label.name() + "' holds " + label.type().name()
                            + " values, not numbers.",
                    selection.labelKind() == LabelKind.CLASSES
                            ? "Train through TrainSpec, which learns the class names, or pass"
                                    + " selection.withClassNames(LabelClasses.learn(table, \""
                                    + DmlException.literal(label.name()) + "\"))."
                            : "Convert the targets to numbers first, or train a classifier.");
        }
        requireFinite(label, "Label");
        return selection.labelKind() == LabelKind.CLASSES ? classCount(label) : 0;
    }

    private static int classCount(Column<?> label) {
        int max = 0;
        for (int i = 0; i < label.size(); i++) {
            double v = Columns.value(label, i);
            if (v < 0 || v != Math.rint(v) || v > Integer.MAX_VALUE - 1) {
                throw new DmlException(
                        "Label column '" + label.name() + "' has value " + v + " at row " + i
                                + ", which is not a class index 0..k-1.",
                        "Map each class to an integer 0..k-1, or use LabelKind.REGRESSION for"
                                + " real-valued targets.");
            }
            max = Math.max(max, (int) v);
        }
        return max + 1;
    }

    private static void requireFinite(Column<?> c, String role) {
        int bad = Columns.firstNonFinite(c);
        if (bad >= 0) {
            double v = Columns.value(c, bad);
            String what = Double.isNaN(v) ? "a missing value (NaN)"
                    : Double.isInfinite(v) ? "an infinite value"
                    : "a value outside float range (" + v + ")";
            throw new DmlException(
                    role + " column '" + DmlException.literal(c.name()) + "' has " + what
                            + " at row " + bad + ".", Double.isFinite(v)
                            ? "Scale the column to a float's range, for example divide it by 1e6,"
                                    + " or drop those rows."
                            : "Fill or drop those rows first, for example"
                                    + " table.dropRowsWithMissingValues().");
        }
    }

    private static void requirePresent(
            Table table, String tableName, String name, String role, List<String> available) {
        if (table.containsColumn(name)) {
            return;
        }
        String hint = Suggestions.didYouMean(name, available) + "Available columns: "
                + list(available) + ".";
        throw new DmlException(
                role + " column '" + name + "' is not in the " + quoted(tableName) + ".", hint);
    }

    private static String quoted(String tableName) {
        return "table".equals(tableName) ? "table" : "table '" + tableName + "'";
    }

    private static String list(List<String> names) {
        int max = 40;
        String shown = String.join(", ", names.subList(0, Math.min(max, names.size())));
        return names.size() > max ? shown + ", … (" + names.size() + " in all)" : shown;
    }
}
