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
     * of a text feature ({@link FeatureVocabulary}), and an embedded one's index, get mean 0 and
     * standard deviation 1: they are not standardised.
     *
     * @param table the training table
     * @param selection the feature columns
     * @return the statistics, one entry per feature in selection order
     */
    public static FeatureStats of(Table table, ColumnSelection selection) {
        TableValidator.validate(table, selection.featuresOnly());
        return new Moments(selection).add(table).stats();
    }

    /**
     * Running moments of the inputs over several tables (a file's row groups, read one at a
     * time): each table's mean and sum of squared deviations, merged exactly (Chan et al.), so
     * the result equals {@link #of} on all the rows at once, without holding them.
     */
    public static final class Moments {
        private final ColumnSelection selection;
        private final boolean[] categorical;
        private final double[] mean;
        private final double[] m2;
        private long n;

        /**
         * Starts with no rows.
         *
         * @param selection the feature columns, with the vocabulary of its text features
         */
        public Moments(ColumnSelection selection) {
            this.selection = selection;
            this.categorical = selection.vocabulary().categorical(selection.features());
            int f = selection.inputs().size();
            this.mean = new double[f];
            this.m2 = new double[f];
        }

        /**
         * Adds a table's rows.
         *
         * @param table rows holding the selected features
         * @return this
         */
        public Moments add(Table table) {
            int rows = table.rowCount();
            if (rows == 0) {
                return this;
            }
            Table inputs = VocabularyEncoding.inputsOf(table, selection.featuresOnly());
            List<String> names = selection.inputs();
            long total = n + rows;
            for (int c = 0; c < names.size(); c++) {
                if (categorical[c]) {
                    continue;
                }
                float[] v = Columns.floats(inputs.column(names.get(c)));
                double sum = 0;
                for (int i = 0; i < rows; i++) {
                    sum += v[i];
                }
                double tm = sum / rows;
                double sq = 0;
                for (int i = 0; i < rows; i++) {
                    double d = v[i] - tm;
                    sq += d * d;
                }
                double delta = tm - mean[c];
                m2[c] += sq + delta * delta * n * rows / total;
                mean[c] += delta * rows / total;
            }
            n = total;
            return this;
        }

        /**
         * Returns the statistics of every row added.
         *
         * @return the statistics; a constant input gets a standard deviation of 1
         */
        public FeatureStats stats() {
            int f = mean.length;
            float[] means = new float[f];
            float[] stds = new float[f];
            for (int c = 0; c < f; c++) {
                if (categorical[c]) { // one-hot 0 or 1, or an index: left as they are
                    stds[c] = 1f;
                    continue;
                }
                double std = Math.sqrt(m2[c] / n);
                means[c] = (float) mean[c];
                stds[c] = std > 1e-12 ? (float) std : 1f;
            }
            return new FeatureStats(means, stds);
        }
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
