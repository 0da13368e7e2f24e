package dev.dml.ray.train;

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
        ColumnSelection columns = model.columns();
        int[] classes = null;
        if (columns.hasLabel() && columns.labelKind() == LabelKind.CLASSES) {
            Objective o = model.model().objective();
            classes = new int[scores.length];
            for (int r = 0; r < scores.length; r++) {
                classes[r] = o.predictedClass(scores[r], 0, scores[r].length);
            }
        }
        return of(name, scores, model.model().outputs(), classes, columns.classNames());
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

    /** Columns p0..p(k-1), then {@code predicted} (names or indices) when classes is set. */
    static Table of(String name, float[][] p, int outputs, int[] classes,
            List<String> names) {
        Table out = Table.create(name);
        int k = p.length == 0 ? outputs : p[0].length;
        for (int j = 0; j < k; j++) {
            float[] col = new float[p.length];
            for (int i = 0; i < p.length; i++) {
                col[i] = p[i][j];
            }
            out.addColumns(FloatColumn.create("p" + j, col));
        }
        if (classes != null) {
            out.addColumns(names.isEmpty() ? IntColumn.create("predicted", classes)
                    : StringColumn.create("predicted", Arrays.stream(classes)
                            .mapToObj(names::get)));
        }
        return out;
    }
}
