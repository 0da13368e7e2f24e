package dev.dml.cost;

import java.io.Serializable;
import java.util.Locale;

/**
 * When a job must stop on its own: before its cost would pass a budget, or its run time a
 * deadline. Each call to the workers runs only as many steps as fit, at the pace the job has
 * measured, so a limit is overshot by at most one step when steps keep their pace.
 *
 * @param budgetUsd dollars this run may spend; NaN for no budget
 * @param deadlineSeconds seconds this run may take from its workers' start; NaN for none
 */
public record Limits(double budgetUsd, double deadlineSeconds) implements Serializable {

    /** No budget and no deadline. */
    public static final Limits NONE = new Limits(Double.NaN, Double.NaN);

    /**
     * Tells whether there is a budget or a deadline.
     *
     * @return {@code true} when either is set
     */
    public boolean any() {
        return !Double.isNaN(budgetUsd) || !Double.isNaN(deadlineSeconds);
    }

    /**
     * Says how many more steps fit in the budget and the deadline.
     *
     * @param spent dollars spent so far
     * @param usdPerHour the job's rate now
     * @param elapsed seconds since the workers started
     * @param secondsPerStep the measured seconds per step; NaN before the first is measured
     * @return steps that fit (0: stop now); 1 while the pace is not known yet;
     *     {@link Long#MAX_VALUE} without limits
     */
    public long stepsThatFit(double spent, double usdPerHour, double elapsed,
            double secondsPerStep) {
        if (!any()) {
            return Long.MAX_VALUE;
        }
        if (over(spent, elapsed)) {
            return 0;
        }
        if (Double.isNaN(secondsPerStep) || secondsPerStep <= 0) {
            return 1;
        }
        long fit = Long.MAX_VALUE;
        double stepCost = usdPerHour * secondsPerStep / 3600;
        if (!Double.isNaN(budgetUsd) && stepCost > 0) {
            fit = Math.min(fit, (long) Math.floor((budgetUsd - spent) / stepCost));
        }
        if (!Double.isNaN(deadlineSeconds)) {
            fit = Math.min(fit, (long) Math.floor((deadlineSeconds - elapsed) / secondsPerStep));
        }
        return Math.max(0, fit);
    }

    /**
     * Says why a job that cannot fit another step stops, as the cell shows it.
     *
     * @param spent dollars spent so far
     * @param usdPerHour the job's rate
     * @param elapsed seconds since the workers started
     * @param secondsPerStep the measured pace
     * @return one line, options written as {@code {budget}} templates
     */
    public String reason(double spent, double usdPerHour, double elapsed,
            double secondsPerStep) {
        double stepCost = usdPerHour * secondsPerStep / 3600;
        boolean budget = !Double.isNaN(budgetUsd) && (spent >= budgetUsd
                || spent + stepCost > budgetUsd);
        if (budget) {
            return String.format(Locale.ROOT, "{budget}: stopped after $%.4f of $%s; the next"
                    + " step ($%.4f at $%.2f/h) would pass it", spent, Pricing.plain(budgetUsd),
                    stepCost, usdPerHour);
        }
        return String.format(Locale.ROOT, "{deadline}: stopped after %.1f s of %s s; the next"
                + " step (%.2f s) would pass it", elapsed, Pricing.plain(deadlineSeconds),
                secondsPerStep);
    }

    private boolean over(double spent, double elapsed) {
        return (!Double.isNaN(budgetUsd) && spent >= budgetUsd)
                || (!Double.isNaN(deadlineSeconds) && elapsed >= deadlineSeconds);
    }
}
