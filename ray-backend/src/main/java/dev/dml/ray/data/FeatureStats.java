package dev.dml.ray.data;

import java.io.Serializable;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * The mean and standard deviation of each feature column, for standardising inputs
 * ({@code (x - mean) / std}). Compute it once on the training table and put it in the model
 * spec, so that every worker and every prediction scales the same way.
 *
 * <p>A plain {@link Serializable} class (not a record), so that it can cross Ray.
 */
public final class FeatureStats implements Serializable {

    private static final long serialVersionUID = 1L;

    private final float[] means;
    private final float[] stds;

    private FeatureStats(float[] means, float[] stds) {
        this.means = means;
        this.stds = stds;
    }

    /**
     * Computes the statistics of the selected features' inputs (the table is validated first). A
     * constant column gets a standard deviation of 1, so that it maps to 0. The one-hot inputs
     * of a text feature ({@link FeatureVocabulary}) get mean 0 and standard deviation 1: they
     * are not standardised.
     *
     * @param table the training table
     * @param selection the feature columns
     * @return the statistics, one entry per feature in selection order
     */
    public static FeatureStats of(Table table, ColumnSelection selection) {
        TableValidator.validate(table, selection.featuresOnly());
        Table inputs = FeatureVocabulary.inputsOf(table, selection.featuresOnly());
        List<String> names = selection.inputs();
        boolean[] categorical = selection.vocabulary().categorical(selection.features());
        int f = names.size();
        float[] means = new float[f];
        float[] stds = new float[f];
        int n = table.rowCount();
        for (int c = 0; c < f; c++) {
            if (categorical[c]) { // one-hot 0 or 1, or an index: left as they are
                means[c] = 0f;
                stds[c] = 1f;
                continue;
            }
            float[] v = Columns.floats(inputs.column(names.get(c)));
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += v[i];
            }
            double mean = sum / n;
            double sq = 0;
            for (int i = 0; i < n; i++) {
                double d = v[i] - mean;
                sq += d * d;
            }
            double std = Math.sqrt(sq / n);
            means[c] = (float) mean;
            stds[c] = std > 1e-12 ? (float) std : 1f;
        }
        return new FeatureStats(means, stds);
    }

    /**
     * Returns the means.
     *
     * @return a copy, one per feature
     */
    public float[] means() {
        return means.clone();
    }

    /**
     * Returns the standard deviations (never 0).
     *
     * @return a copy, one per feature
     */
    public float[] stds() {
        return stds.clone();
    }

    /**
     * Returns the number of features.
     *
     * @return the feature count
     */
    public int size() {
        return means.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeatureStats
                && java.util.Arrays.equals(means, ((FeatureStats) o).means)
                && java.util.Arrays.equals(stds, ((FeatureStats) o).stds);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Arrays.hashCode(means) + java.util.Arrays.hashCode(stds);
    }
}
