package dev.dml.cost;

/**
 * One configuration of a {@link JobPlan}: a number of workers on nodes of one kind, in one
 * market, with its predicted wall time and cost for the whole job.
 *
 * @param row its number in the plan's table, from 1; 0 before the plan numbers it
 * @param workers worker actors
 * @param nodes what the workers run on, e.g. {@code 1 x aws m5.xlarge on-demand}
 * @param market how the nodes are bought
 * @param usdPerHour what the nodes cost an hour together; 0 on an unpriced cluster, NaN when
 *     a price is unknown
 * @param seconds the predicted wall time of the whole job; NaN when not measured
 * @param basis where the time comes from, e.g. {@code probe: 30 steps, 41.2 ms/step (compute
 *     35.0, all-reduce 6.2)}, or why it is not measured
 * @param pareto whether no other row is both faster and cheaper
 * @param unavailable why {@code %dml train --plan} cannot run the row on this cluster as it is
 *     priced now; empty when it can
 */
public record PlanRow(int row, int workers, String nodes, Market market, double usdPerHour,
        double seconds, String basis, boolean pareto, String unavailable) {

    /**
     * Tells whether the row's time was measured on the cluster, so that it can run.
     *
     * @return {@code false} for a node kind the cluster has none of
     */
    public boolean measured() {
        return !Double.isNaN(seconds);
    }

    /**
     * Tells whether {@code %dml train --plan} can run the row.
     *
     * @return {@code true} when measured on this cluster as it is priced now
     */
    public boolean runnable() {
        return unavailable.isEmpty();
    }

    /**
     * Returns the predicted cost of the whole job.
     *
     * @return dollars; NaN when the time or the price is unknown
     */
    public double usd() {
        return seconds / 3600 * usdPerHour;
    }

    PlanRow numbered(int number, boolean onFront) {
        return new PlanRow(number, workers, nodes, market, usdPerHour, seconds, basis, onFront,
                unavailable);
    }
}
