package dev.dml.ray.train;

import java.io.Serializable;

/**
 * What one epoch did: its mean training loss and, with a validation split, the validation
 * metrics that rank 0 computed. An event sent from the driver to the kernel, so a plain {@link
 * Serializable} class.
 */
public final class EpochMetrics implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int epoch;
    private final long steps;
    private final float trainLoss;
    private final double seconds;
    private final double examplesPerSecond;
    private final float validationLoss;
    private final double validationAccuracy;
    private final double validationAuc;

    EpochMetrics(int epoch, long steps, float trainLoss, double seconds, double examplesPerSecond,
            Evaluation validation) {
        this.epoch = epoch;
        this.steps = steps;
        this.trainLoss = trainLoss;
        this.seconds = seconds;
        this.examplesPerSecond = examplesPerSecond;
        this.validationLoss = validation == null ? Float.NaN : validation.loss();
        this.validationAccuracy = validation == null ? Double.NaN : validation.accuracy();
        this.validationAuc = validation == null ? Double.NaN : validation.auc();
    }

    /**
     * Returns the epoch.
     *
     * @return 0-based epoch
     */
    public int epoch() {
        return epoch;
    }

    /**
     * Returns the global step count at the end of this epoch.
     *
     * @return steps so far
     */
    public long steps() {
        return steps;
    }

    /**
     * Returns the mean of this epoch's step losses (of the steps run in this job).
     *
     * @return the loss
     */
    public float trainLoss() {
        return trainLoss;
    }

    /**
     * Returns the epoch's wall time, as the driver saw it.
     *
     * @return seconds
     */
    public double seconds() {
        return seconds;
    }

    /**
     * Returns the epoch's training rows per second over all workers, driver overhead included.
     *
     * @return rows per second
     */
    public double examplesPerSecond() {
        return examplesPerSecond;
    }

    /**
     * Returns the mean loss on the validation split.
     *
     * @return the loss, NaN without a validation split
     */
    public float validationLoss() {
        return validationLoss;
    }

    /**
     * Returns the accuracy on the validation split.
     *
     * @return 0 to 1, NaN without a validation split or for regression
     */
    public double validationAccuracy() {
        return validationAccuracy;
    }

    /**
     * Returns the ROC AUC on the validation split, for two classes.
     *
     * @return 0 to 1, NaN without a validation split or with more than two classes
     */
    public double validationAuc() {
        return validationAuc;
    }

    @Override
    public String toString() {
        return String.format("epoch %d: loss %.5f, %.1f s, %.0f examples/s, validation loss %.5f,"
                + " accuracy %.4f, AUC %.4f", epoch, trainLoss, seconds, examplesPerSecond,
                validationLoss, validationAccuracy, validationAuc);
    }
}
