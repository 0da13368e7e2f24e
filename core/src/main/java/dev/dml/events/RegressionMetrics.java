package dev.dml.events;

import java.io.Serializable;

/**
 * How well a regression model predicts the validation rows.
 *
 * @param rmse the root mean squared error, in the target's unit; NaN when not known
 * @param mae the mean absolute error, in the target's unit; NaN when not known
 * @param r2 the coefficient of determination: 1 is perfect, 0 is always predicting the mean
 *     of the validation targets, below 0 is worse than that; NaN when not known
 */
public record RegressionMetrics(double rmse, double mae, double r2) implements Serializable {

    /** No regression metrics: a classifier, or no validation rows. */
    public static final RegressionMetrics NONE =
            new RegressionMetrics(Double.NaN, Double.NaN, Double.NaN);

    /**
     * Tells whether these metrics were measured.
     *
     * @return {@code false} for {@link #NONE}
     */
    public boolean known() {
        return !Double.isNaN(rmse);
    }
}
