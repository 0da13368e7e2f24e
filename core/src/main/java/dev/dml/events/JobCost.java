package dev.dml.events;


/**
 * What a job has cost so far: an event the driver sends once its workers run, and after each
 * call to them. The rate is the sum of the prices of the nodes the job's workers occupy, each
 * node paid whole (as the cloud bills it), whatever share of it the workers use.
 *
 * @param step the steps run so far
 * @param usdPerHour the job's rate now, dollars per hour; NaN when a node's price is unknown
 * @param usdSpent dollars spent since the workers started
 * @param seconds seconds since the workers started
 * @param secondsPerStep the measured seconds per step, driver overhead included; NaN before
 *     the first step
 * @param priced whether any node of the job is priced (an unpriced local cluster costs $0)
 * @param spot whether any node of the job is a spot instance
 * @param nodes one line on how the nodes are priced, e.g. {@code 2 nodes: aws g5.xlarge spot,
 *     us-east-1 (dml's price catalogue, 2025-05-31) x2}
 */
public record JobCost(long step, double usdPerHour, double usdSpent, double seconds,
        double secondsPerStep, boolean priced, boolean spot, String nodes)
        implements JobEvent {}
