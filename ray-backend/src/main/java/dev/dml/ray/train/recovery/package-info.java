/**
 * What a job keeps to survive lost workers and to resume: the checkpoint file format and the
 * stage files beside it, the placement groups a job reserves, the cluster's room an elastic job
 * grows into, and the recovery statistics a result reports. The recovery rounds and the
 * checkpoint store that drive the workers live in {@code runner}.
 */
package dev.dml.ray.train.recovery;
