package dev.dml.ray.train;

import java.util.Arrays;
import java.util.List;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The table {@link TrainResult#predict} returns. */
final class PredictionTables {

    private PredictionTables() {}

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
