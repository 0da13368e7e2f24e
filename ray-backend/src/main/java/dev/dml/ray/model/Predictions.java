package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.TableArrays;
import tech.tablesaw.api.Table;

/** Runs a whole model over a table's features in batches. */
public final class Predictions {

    private static final int BATCH = 4096;

    private Predictions() {}

    /**
     * Predicts every row of a table with a whole model; the table is validated first.
     *
     * @param replica the whole model
     * @param table the table
     * @param selection its feature columns, in the order the model was trained on
     * @return one array of {@code outputs} floats per row
     */
    public static float[][] scores(ModelStage replica, Table table, ColumnSelection selection) {
        int k = replica.spec().outputs();
        try (NDManager scope = replica.manager().newSubManager()) {
            NDArray x = TableArrays.openFeatures(table, selection, scope);
            int n = (int) x.getShape().get(0);
            float[][] out = new float[n][];
            for (int from = 0; from < n; from += BATCH) {
                int to = Math.min(n, from + BATCH);
                try (NDArray batch = x.get(new NDIndex("{}:{}", from, to))) {
                    float[] p = replica.predict(batch);
                    for (int r = from; r < to; r++) {
                        out[r] = new float[k];
                        System.arraycopy(p, (r - from) * k, out[r], 0, k);
                    }
                }
            }
            return out;
        }
    }

    /**
     * Predicts the class of every row (argmax, or probability &gt; 0.5 for sigmoid).
     *
     * @param replica the whole model
     * @param table the table
     * @param selection its feature columns
     * @return one class index per row
     */
    public static int[] classes(ModelStage replica, Table table, ColumnSelection selection) {
        float[][] p = scores(replica, table, selection);
        Objective o = replica.spec().objective();
        int[] c = new int[p.length];
        for (int r = 0; r < p.length; r++) {
            c[r] = o.predictedClass(p[r], 0, p[r].length);
        }
        return c;
    }
}
