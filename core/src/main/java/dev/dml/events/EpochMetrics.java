package dev.dml.events;


/**
 * What one epoch did: its mean training loss and, with validation, the validation metrics. An
 * event the driver sends to the kernel.
 *
 * @param epoch the epoch, counting from 1
 * @param steps the step number at the end of this epoch, over the whole job
 * @param stepsRun the steps this job ran in this epoch (fewer after a resume)
 * @param trainLoss the mean of the step losses this job ran in the epoch
 * @param seconds the epoch's wall time, as the driver saw it
 * @param examplesPerSecond the epoch's training rows per second, driver overhead included
 * @param validationLoss the mean validation loss; NaN without validation
 * @param validationAccuracy the validation accuracy; NaN without validation or for regression
 * @param validationAuc the validation ROC AUC for two classes; NaN otherwise
 * @param validationRegression the validation RMSE, MAE and R² of a regression; {@link
 *     RegressionMetrics#NONE} without validation or for classes
 */
public record EpochMetrics(int epoch, long steps, long stepsRun, float trainLoss,
        double seconds, double examplesPerSecond, float validationLoss,
        double validationAccuracy, double validationAuc,
        RegressionMetrics validationRegression) implements JobEvent {

    /** Never null. */
    public EpochMetrics {
        validationRegression = validationRegression == null ? RegressionMetrics.NONE
                : validationRegression;
    }

    /**
     * The metrics of an epoch without regression metrics.
     *
     * @param epoch the epoch, counting from 1
     * @param steps the step number at the end of this epoch
     * @param stepsRun the steps this job ran in this epoch
     * @param trainLoss the mean training loss
     * @param seconds the epoch's wall time
     * @param examplesPerSecond the epoch's training rows per second
     * @param validationLoss the mean validation loss; NaN without validation
     * @param validationAccuracy the validation accuracy; NaN when not known
     * @param validationAuc the validation ROC AUC; NaN when not known
     */
    public EpochMetrics(int epoch, long steps, long stepsRun, float trainLoss, double seconds,
            double examplesPerSecond, float validationLoss, double validationAccuracy,
            double validationAuc) {
        this(epoch, steps, stepsRun, trainLoss, seconds, examplesPerSecond, validationLoss,
                validationAccuracy, validationAuc, RegressionMetrics.NONE);
    }
}
