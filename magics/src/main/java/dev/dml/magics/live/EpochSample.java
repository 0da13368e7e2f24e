package dev.dml.magics.live;
/** TEMP */
public record EpochSample(int epoch, long steps, double trainLoss, double seconds,
        double examplesPerSecond, double validationLoss, double validationAccuracy, double validationAuc) {}
