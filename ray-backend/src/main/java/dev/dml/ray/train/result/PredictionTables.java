package dev.dml.ray.train.result;

import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.Objective;
import java.util.Arrays;
import java.util.List;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The prediction columns {@link TrainResult#predict} returns, made from a model's scores; a
 * distributed prediction ({@code Dml.predict}) adds the same columns to its input.
 */
public final class PredictionTables {

    private PredictionTables() {}

    /**
     * Turns a model's scores into its prediction columns: {@code p0..p(k-1)} and, for a
     * classifier, {@code predicted} (class names when the label held text, else indices).
     *
     * @param model the model that scored the rows
     * @param name the new table's name
     * @param scores one array of {@code outputs} floats per row, as {@link TrainResult#scores}
     * @return a new table, one row per score
     */
    public static Table of(TrainResult model, String name, float[][] scores) {
        int k = model.model().outputs();
        float[] flat = new float[scores.length * k];
        for (int r = 0; r < scores.length; r++) {
            System.arraycopy(scores[r], 0, flat, r * k, k);
        }
        return of(model, name, flat);
    }

    /**
     * Turns a model's scores, row-major, into its prediction columns, as {@link
     * #of(TrainResult, String, float[][])} does.
     *
     * @param model the model that scored the rows
     * @param name the new table's name
     * @param scores {@code outputs} floats per row, row after row
     * @return a new table, one row per {@code outputs} scores
     */
    public static Table of(TrainResult model, String name, float[] scores) {
        ColumnSelection columns = model.columns();
        int k = model.model().outputs();
        int n = scores.length / k;
        Table out = Table.create(name);
        for (int j = 0; j < k; j++) {
            float[] col = new float[n];
            for (int i = 0; i < n; i++) {
                col[i] = scores[i * k + j];
            }
            out.addColumns(FloatColumn.create("p" + j, col));
        }
        if (columns.hasLabel() && columns.labelKind() == LabelKind.CLASSES) {
            Objective o = model.model().objective();
            int[] classes = new int[n];
            for (int r = 0; r < n; r++) {
                classes[r] = o.predictedClass(scores, r, k);
            }
            List<String> names = columns.classNames();
            out.addColumns(names.isEmpty() ? IntColumn.create("predicted", classes)
                    : StringColumn.create("predicted", Arrays.stream(classes)
                            .mapToObj(names::get)));
        }
        return out;
    }

    /**
     * Names the columns {@link #of(TrainResult, String, float[][])} makes for a model.
     *
     * @param model the model
     * @return {@code p0..p(k-1)}, then {@code predicted} for a classifier
     */
    public static List<String> columnNames(TrainResult model) {
        List<String> names = new java.util.ArrayList<>();
        for (int j = 0; j < model.model().outputs(); j++) {
            names.add("p" + j);
        }
        ColumnSelection columns = model.columns();
        if (columns.hasLabel() && columns.labelKind() == LabelKind.CLASSES) {
            names.add("predicted");
        }
        return names;
    }
}
