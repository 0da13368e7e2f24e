package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.TableArrays;
import tech.tablesaw.api.Table;

/** Runs a replica over a table's features in batches. */
final class Predictions {

    private static final int BATCH = 4096;

    private Predictions() {}

    static float[][] predict(TrainingReplica replica, Table table, ColumnSelection selection) {
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

    static int[] classes(TrainingReplica replica, Table table, ColumnSelection selection) {
        float[][] p = predict(replica, table, selection);
        Objective o = replica.spec().objective();
        int[] c = new int[p.length];
        for (int r = 0; r < p.length; r++) {
            if (o == Objective.SIGMOID_BINARY_CROSS_ENTROPY) {
                c[r] = p[r][0] > 0.5f ? 1 : 0;
            } else {
                int best = 0;
                for (int j = 1; j < p[r].length; j++) {
                    if (p[r][j] > p[r][best]) {
                        best = j;
                    }
                }
                c[r] = best;
            }
        }
        return c;
    }
}
