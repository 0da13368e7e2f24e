/**
 * The scaling table {@code %dml scale} shows: one job run at several sizes, with throughput,
 * speedup, efficiency, time to a target and cost per size.
 */
package dev.dml.scaling;
