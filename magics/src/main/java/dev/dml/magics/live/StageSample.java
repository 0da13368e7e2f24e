package dev.dml.magics.live;

/**
 * One pipeline stage's time over a step: busy computing, or idle waiting for its neighbours
 * (the pipeline bubble), and the activation bytes it sent on.
 *
 * @param stage the stage index, counting from 0
 * @param busyMillis time spent computing forward and backward passes
 * @param idleMillis time spent waiting
 * @param activationBytes bytes of activations (and their gradients) the stage sent
 */
public record StageSample(int stage, double busyMillis, double idleMillis, long activationBytes) {
}
