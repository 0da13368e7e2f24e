package dev.dml.ray.train;

import java.io.Serializable;

/** The metrics of the validation rows; crosses Ray, so a plain Serializable class. */
public final class Evaluation implements Serializable {

    private static final long serialVersionUID = 1L;

    private final float loss;
    private final double accuracy;
    private final double auc;

    Evaluation(float loss, double accuracy, double auc) {
        this.loss = loss;
        this.accuracy = accuracy;
        this.auc = auc;
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
