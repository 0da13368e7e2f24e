package dev.dml.ray.data;

import dev.dml.options.ModelFamily;
import java.util.List;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Tells a label's kind from its values, and selects a table's columns by a label name and
 * optional feature names: what {@code %dml train --label L [--features A,B]} means. The engine
 * does it when it builds a spec, on the table or, for files the workers read, on their first
 * row group.
 */
public final class LabelInference {

    /** More distinct integer values than this in a numeric label means regression. */
    private static final int MAX_CLASSES = 1000;

    private LabelInference() {}

    /**
     * Selects the label and the features, the label's kind told from its values.
     *
     * @param table the table, or a sample of the rows (a row group)
     * @param label the label column
     * @param features the feature columns, or null for every other column
     * @param model the model family: {@code mf} scores whole-number ratings as ratings
     * @return the selection
     */
    public static ColumnSelection select(Table table, String label, List<String> features,
            ModelFamily model) {
        LabelKind kind = labelKind(table, label);
        if (model == ModelFamily.MF && kind == LabelKind.CLASSES
                && table.containsColumn(label)
                && table.column(label) instanceof NumericColumn<?> stars
                && stars.countUnique() > 2) {
            kind = LabelKind.REGRESSION; // mf scores whole-number ratings (1-5 stars) as ratings
        }
        if (features == null) {
            return ColumnSelection.allExcept(table, label, kind);
        }
        return ColumnSelection.builder().setLabel(label, kind).addFeatures(features).build();
    }

    /**
     * Whole numbers (or booleans) are classes; anything else is a regression target. With
     * {@code --read-on-workers} this looks at the first row group only.
     *
     * @param table the table, or a sample of its rows
     * @param label the label column
     * @return its kind; classes when the table lacks the column (the validator names it)
     */
    public static LabelKind labelKind(Table table, String label) {
        if (!table.containsColumn(label)) {
            return LabelKind.CLASSES; // the table validator names the missing column
        }
        Column<?> c = table.column(label);
        if (c instanceof BooleanColumn || !(c instanceof NumericColumn<?> numeric)) {
            return LabelKind.CLASSES;
        }
        for (int i = 0; i < numeric.size(); i++) {
            double v = numeric.getDouble(i);
            if (!Double.isNaN(v) && (v != Math.rint(v) || v < 0 || v >= MAX_CLASSES)) {
                return LabelKind.REGRESSION;
            }
        }
        return LabelKind.CLASSES;
    }
}
