package dev.dml.magics.live;
/** TEMP */
public record StageSample(int stage, double busyMillis, double idleMillis, long activationBytes) {}
