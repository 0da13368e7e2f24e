package dev.dml.magics.live;

import dev.dml.events.JobCost;
import dev.dml.events.Recovery;
import java.util.List;

/**
 * A job's dollars as the live cell shows them, from its latest {@link JobCost}: spent so far,
 * the rate, what the rest of the job costs at that rate, and what recoveries from pre-empted
 * or lost workers cost (the time they took and the steps run again, at the job's rate).
 *
 * @param usdSpent dollars spent so far
 * @param usdPerHour the job's rate; NaN when a node's price is unknown
 * @param priced whether any node of the job is priced
 * @param spot whether any node is a spot instance
 * @param secondsPerStep the measured pace; NaN before the first step
 * @param nodes how the nodes are priced
 */
public record JobCosts(double usdSpent, double usdPerHour, boolean priced, boolean spot,
        double secondsPerStep, String nodes) {

    /** Before the job's first cost event. */
    public static final JobCosts NONE = new JobCosts(0, 0, false, false, Double.NaN, "");

    static JobCosts of(JobCost c) {
        return new JobCosts(c.usdSpent(), c.usdPerHour(), c.priced(), c.spot(),
                c.secondsPerStep(), c.nodes());
    }

    /**
     * Returns the job's cost at its end if the rate holds.
     *
     * @param etaSeconds seconds left
     * @return dollars; NaN when the rate or the time left is unknown
     */
    public double projectedUsd(double etaSeconds) {
        return usdSpent + usdPerHour * etaSeconds / 3600;
    }

    /**
     * Returns the time recoveries cost: each one's own time, and the steps it ran again at
     * the job's pace.
     *
     * @param recoveries the job's recoveries
     * @return seconds
     */
    public double secondsLost(List<Recovery> recoveries) {
        double pace = Double.isNaN(secondsPerStep) ? 0 : secondsPerStep;
        return recoveries.stream().mapToDouble(r -> r.seconds() + r.stepsRedone() * pace).sum();
    }

    /**
     * Returns what the recoveries' lost time cost at the job's rate.
     *
     * @param recoveries the job's recoveries
     * @return dollars
     */
    public double usdLost(List<Recovery> recoveries) {
        return secondsLost(recoveries) * usdPerHour / 3600;
    }

    /**
     * The header's cost line.
     *
     * @param etaSeconds seconds left; NaN when unknown
     * @param recoveries the job's recoveries
     * @return e.g. {@code $0.0123 spent · $2.01/h · projected $0.0456 at this rate}
     */
    String line(double etaSeconds, List<Recovery> recoveries) {
        if (this == NONE || !priced) {
            return "cost: $0, nodes not priced (%dml cluster price prices them)";
        }
        if (Double.isNaN(usdPerHour)) {
            return "cost unknown: a node of the job has no price (see %dml cluster)";
        }
        String out = Formats.usd(usdSpent) + " spent · " + Formats.usd(usdPerHour) + "/h"
                + (spot ? " (spot)" : "") + " · projected " + Formats.usd(
                        projectedUsd(etaSeconds)) + " at this rate";
        if (!recoveries.isEmpty()) {
            out += " · recoveries cost " + Formats.usd(usdLost(recoveries)) + " ("
                    + Formats.duration(secondsLost(recoveries)) + " lost)";
        }
        return out;
    }
}
