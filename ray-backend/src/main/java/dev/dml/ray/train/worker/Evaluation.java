package dev.dml.ray.train.worker;

import dev.dml.events.RegressionMetrics;
import java.io.Serializable;

/** The metrics of the validation rows; crosses Ray, so a plain Serializable class. */
public final class Evaluation implements Serializable {

    private static final long serialVersionUID = 2L;

    private final float loss;
    private final double accuracy;
    private final double auc;
    /** RMSE, MAE and R² of a regression, NaN for classes (a record cannot cross Ray). */
    private final double rmse;
    private final double mae;
    private final double r2;

    Evaluation(float loss, double accuracy, double auc) {
        this(loss, accuracy, auc, RegressionMetrics.NONE);
    }

    Evaluation(float loss, double accuracy, double auc, RegressionMetrics regression) {
        this.loss = loss;
        this.accuracy = accuracy;
        this.auc = auc;
        this.rmse = regression.rmse();
        this.mae = regression.mae();
        this.r2 = regression.r2();
    }

    /**
     * Returns the RMSE, MAE and R² of a regression.
     *
     * @return the metrics, {@link RegressionMetrics#NONE} for classes
     */
    public RegressionMetrics regression() {
        return new RegressionMetrics(rmse, mae, r2);
    }

    /**
     * Returns the mean loss.
     *
     * @return the loss
     */
    public float loss() {
        return loss;
    }

    /**
     * Returns the accuracy.
     *
     * @return 0 to 1, NaN for regression
     */
    public double accuracy() {
        return accuracy;
    }

    /**
     * Returns the ROC AUC of the positive class.
     *
     * @return 0 to 1, NaN unless there are exactly two classes
     */
    public double auc() {
        return auc;
    }
}
