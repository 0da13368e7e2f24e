package dev.dml.scaling;

/**
 * One size of a {@link ScaleTable}.
 *
 * @param workers worker actors
 * @param examplesPerSecond the median throughput of the epochs after the first (the warm-up)
 * @param speedup throughput over the smallest size's
 * @param efficiency speedup over its ideal, {@code workers / smallest size}
 * @param secondsToTarget wall time from submission to the first evaluation at or above the
 *     target; NaN when not reached or no target was set
 * @param finalMetric the last evaluation's metric; NaN without validation rows
 * @param usd what the run cost; 0 on an unpriced cluster
 * @param wallSeconds the run's wall time
 */
public record ScaleRow(int workers, double examplesPerSecond, double speedup,
        double efficiency, double secondsToTarget, double finalMetric, double usd,
        double wallSeconds) {}
