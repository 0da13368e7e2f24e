package dev.dml.ray.train.staged;

import dev.dml.DmlException;

/** Splits a model's layers into contiguous stages of balanced cost. */
public final class Partition {

    private Partition() {}

    /**
     * Splits {@code costs.length} layers into {@code stages} contiguous, non-empty stages so that
     * the costliest stage costs as little as possible.
     *
     * @param costs each layer's cost (parameters or milliseconds), non-negative
     * @param stages at least 1, at most {@code costs.length}
     * @return the layers of each stage
     */
    public static int[] balance(double[] costs, int stages) {
        int n = costs.length;
        if (stages < 1 || stages > n) {
            throw new DmlException("Cannot split " + n + " layers into " + stages + " stages.",
                    "Use 1 to " + n + " stages.");
        }
        double[] prefix = new double[n + 1];
        for (int i = 0; i < n; i++) {
            prefix[i + 1] = prefix[i] + costs[i];
        }
        // best[k][i]: the least max-stage cost of the first i layers in k stages
        double[][] best = new double[stages + 1][n + 1];
        int[][] cut = new int[stages + 1][n + 1];
        for (double[] row : best) {
            java.util.Arrays.fill(row, Double.POSITIVE_INFINITY);
        }
        best[0][0] = 0;
        for (int k = 1; k <= stages; k++) {
            for (int i = k; i <= n; i++) {
                for (int j = k - 1; j < i; j++) {
                    double c = Math.max(best[k - 1][j], prefix[i] - prefix[j]);
                    if (c < best[k][i]) {
                        best[k][i] = c;
                        cut[k][i] = j;
                    }
                }
            }
        }
        int[] layers = new int[stages];
        int i = n;
        for (int k = stages; k >= 1; k--) {
            layers[k - 1] = i - cut[k][i];
            i = cut[k][i];
        }
        return layers;
    }
}
