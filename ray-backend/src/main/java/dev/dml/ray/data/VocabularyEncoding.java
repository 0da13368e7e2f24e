package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Encodes a table's text features as a {@link FeatureVocabulary} says: the one-hot inputs, or an
 * embedded column's category index. Apart from the vocabulary, which is what travels with the
 * model, as the encoding is only how a table is turned into inputs.
 */
final class VocabularyEncoding {

    private VocabularyEncoding() {}

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
            if (FeatureVocabulary.isText(table.column(f)) && !v.encodes(f)) {
                throw new DmlException("Feature column '" + DmlException.literal(f) + "' holds"
                        + " text, but no categories were learnt for it.", "Train through"
                        + " TrainSpec, which learns them, or pass selection.withVocabulary("
                        + "FeatureVocabulary.learn(trainingTable, selection)).");
            }
        }
        return v.isEmpty() ? table
                : encode(v, table, selection.features(), selection.label());
    }

    /**
     * Returns a table of the model's inputs (numeric columns as they are, text columns as
     * float one-hot columns), and the label column when {@code label} is not null. The numeric
     * columns are shared with {@code table}, not copied.
     *
     * @param v the vocabulary learnt on the training table
     * @param table a validated table
     * @param features the feature columns
     * @param label the label column to keep, or {@code null}
     * @return a new table
     */
    static Table encode(FeatureVocabulary v, Table table, List<String> features,
            String label) {
        Table out = Table.create(table.name());
        for (String f : features) {
            Column<?> c = table.column(f);
            List<String> cats = v.categoriesOf(f);
            if (cats == null) {
                out.addColumns(c);
                continue;
            }
            if (v.embeds(f)) {
                out.addColumns(CategoryCounts.indices(c, cats, f + "=" + FeatureVocabulary.INDEX));
                continue;
            }
            if (!FeatureVocabulary.isText(c)) {
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
            String v = i < cats.size() ? cats.get(i) : FeatureVocabulary.OTHER;
            out[i] = FloatColumn.create(c.name() + "=" + v, cols[i]);
        }
        return out;
    }
}
