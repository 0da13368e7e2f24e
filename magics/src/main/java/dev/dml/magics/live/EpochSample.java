package dev.dml.magics.live;

/**
 * What the job reports when an epoch ends.
 *
 * @param epoch the epoch that ended, counting from 1
 * @param steps the steps this epoch ran
 * @param trainLoss the mean training loss over the epoch
 * @param seconds how long the epoch took
 * @param examplesPerSecond the epoch's throughput, all workers together
 * @param validationLoss the loss on the validation set; NaN when there is none
 * @param validationAccuracy accuracy on the validation set, 0 to 1; NaN when not known
 * @param validationAuc ROC AUC on the validation set; NaN when not known
 */
public record EpochSample(int epoch, long steps, double trainLoss, double seconds,
        double examplesPerSecond, double validationLoss, double validationAccuracy,
        double validationAuc) {
}
