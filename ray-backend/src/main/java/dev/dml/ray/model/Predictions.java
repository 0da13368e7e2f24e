package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.TableArrays;
import tech.tablesaw.api.Table;

/** Runs a whole model over a table's features in batches. */
public final class Predictions {

    /** Rows per forward pass in the kernel; a distributed prediction's default too. */
    public static final int BATCH = 4096;

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
            float[] flat = scores(replica, x, 0, n, BATCH);
            float[][] out = new float[n][];
            for (int r = 0; r < n; r++) {
                out[r] = new float[k];
                System.arraycopy(flat, r * k, out[r], 0, k);
            }
            return out;
        }
    }

    /**
     * Predicts rows {@code [from, to)} of a feature matrix with a whole model, {@code batch}
     * rows per forward pass: what {@link #scores(ModelStage, Table, ColumnSelection)} runs in
     * the kernel and a prediction worker runs on its shard.
     *
     * @param replica the whole model
     * @param x the features, {@code [rows, inputs]} float32
     * @param from the first row
     * @param to one past the last row
     * @param batch rows per forward pass, at least 1
     * @return {@code outputs} floats per row, row-major
     */
    public static float[] scores(ModelStage replica, NDArray x, int from, int to, int batch) {
        int k = replica.spec().outputs();
        float[] out = new float[(to - from) * k];
        for (int at = from; at < to; at += batch) {
            int end = Math.min(to, at + batch);
            try (NDArray rows = x.get(new NDIndex("{}:{}", at, end))) {
                float[] p = replica.predict(rows);
                System.arraycopy(p, 0, out, (at - from) * k, (end - at) * k);
            }
        }
        return out;
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
