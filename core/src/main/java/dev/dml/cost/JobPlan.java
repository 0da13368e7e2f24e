package dev.dml.cost;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A ranked table of configurations for one job, as {@code %dml plan} shows it: the rows in
 * order of predicted time (rows whose time was not measured last), the Pareto front of time
 * against dollars marked, and the row that meets the constraints best.
 *
 * <p>The best row: with a deadline, the cheapest that meets it; with a budget, the fastest
 * within it (with both, the cheapest that meets both); with neither, the cheapest, the faster
 * of rows that cost the same. Only measured rows are chosen.
 *
 * @param job the job, e.g. {@code fraud: mlp [64] on 9,000 rows, 3 epochs}
 * @param rows the configurations, numbered from 1
 * @param best the chosen row's number; 0 when no measured row meets the constraints
 * @param why one line on the choice, or on why there is none
 * @param probeSeconds the wall time of the probes together
 * @param probeUsd what the probes cost
 */
public record JobPlan(String job, List<PlanRow> rows, int best, String why,
        double probeSeconds, double probeUsd) {

    /** Rows that cost the same to within this fraction count as equally cheap. */
    private static final double SAME_COST = 0.005;

    /** A plan is plain data. */
    public JobPlan {
        rows = List.copyOf(rows);
    }

    /**
     * Ranks configurations and picks the best under the constraints.
     *
     * @param job the job's description
     * @param candidates the configurations, unnumbered
     * @param budgetUsd the budget in dollars; NaN for none
     * @param deadlineSeconds the deadline in seconds; NaN for none
     * @param probeSeconds the probes' wall time
     * @param probeUsd the probes' cost
     * @return the plan
     */
    public static JobPlan rank(String job, List<PlanRow> candidates, double budgetUsd,
            double deadlineSeconds, double probeSeconds, double probeUsd) {
        List<PlanRow> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparing((PlanRow r) -> !r.measured())
                .thenComparingDouble(r -> r.measured() ? r.seconds() : 0)
                .thenComparingDouble(r -> Double.isNaN(r.usdPerHour()) ? Double.MAX_VALUE
                        : r.usdPerHour())
                .thenComparingInt(PlanRow::workers));
        List<PlanRow> rows = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            rows.add(sorted.get(i).numbered(i + 1, onFront(sorted.get(i), sorted)));
        }
        List<PlanRow> fit = rows.stream().filter(PlanRow::runnable)
                .filter(r -> !Double.isNaN(r.usd()))
                .filter(r -> Double.isNaN(deadlineSeconds) || r.seconds() <= deadlineSeconds)
                .filter(r -> Double.isNaN(budgetUsd) || r.usd() <= budgetUsd).toList();
        Optional<PlanRow> pick = Double.isNaN(deadlineSeconds) && !Double.isNaN(budgetUsd)
                ? fit.stream().min(Comparator.comparingDouble(PlanRow::seconds))
                : fit.stream().min(JobPlan::cheaperThenFaster);
        String why = pick.map(r -> reason(r, budgetUsd, deadlineSeconds) + cheaperElsewhere(r,
                rows)).orElseGet(() -> none(rows, budgetUsd, deadlineSeconds));
        return new JobPlan(job, rows, pick.map(PlanRow::row).orElse(0), why, probeSeconds,
                probeUsd);
    }

    /**
     * Returns the row {@code %dml train --plan} names.
     *
     * @param choice {@code BEST} or a row number
     * @return the row, measured
     * @throws DmlException one line when the row does not exist, was not measured, or no row
     *     meets the constraints
     */
    public PlanRow choose(String choice) {
        String c = choice.strip();
        int number;
        if (c.equalsIgnoreCase("best")) {
            if (best == 0) {
                throw new DmlException("The plan has no best row: " + why,
                        "Run a row by its number with {plan=N}, or plan again with other"
                                + " limits.");
            }
            number = best;
        } else {
            try {
                number = Integer.parseInt(c);
            } catch (NumberFormatException e) {
                number = -1;
            }
        }
        if (number < 1 || number > rows.size()) {
            throw new DmlException("{plan} must be BEST or a row number of the plan, 1 to "
                    + rows.size() + ", got '" + DmlException.literal(c) + "'.",
                    "Look at the plan's table and write e.g. {plan=BEST}.");
        }
        PlanRow row = rows.get(number - 1);
        if (!row.runnable()) {
            throw new DmlException("Row " + number + " (" + row.workers() + " on "
                    + row.nodes() + ") cannot run here: " + row.unavailable() + ".",
                    row.measured() ? "Price the cluster's nodes so first with %dml cluster"
                            + " price, then plan again; or run another row."
                            : "Run a measured row, or connect to a cluster with such nodes and"
                            + " plan again.");
        }
        return row;
    }

    private static boolean onFront(PlanRow r, List<PlanRow> all) {
        if (!r.measured() || Double.isNaN(r.usd())) {
            return false;
        }
        for (PlanRow o : all) {
            boolean dominates = o.measured() && !Double.isNaN(o.usd())
                    && o.seconds() <= r.seconds() && o.usd() <= r.usd()
                    && (o.seconds() < r.seconds() || o.usd() < r.usd());
            if (dominates) {
                return false;
            }
        }
        return true;
    }

    private static int cheaperThenFaster(PlanRow a, PlanRow b) {
        double scale = Math.max(Math.max(a.usd(), b.usd()), 1e-12);
        if (Math.abs(a.usd() - b.usd()) > SAME_COST * scale) {
            return Double.compare(a.usd(), b.usd());
        }
        return Double.compare(a.seconds(), b.seconds());
    }

    private static String reason(PlanRow r, double budget, double deadline) {
        String what = "row " + r.row() + ": " + r.workers() + (r.workers() == 1 ? " worker"
                : " workers") + " on " + r.nodes() + ", " + duration(r.seconds()) + ", "
                + dollars(r.usd());
        if (!Double.isNaN(deadline) && !Double.isNaN(budget)) {
            return "the cheapest within " + duration(deadline) + " and " + dollars(budget)
                    + " is " + what + ".";
        }
        if (!Double.isNaN(deadline)) {
            return "the cheapest that finishes within " + duration(deadline) + " is " + what
                    + ".";
        }
        if (!Double.isNaN(budget)) {
            return "the fastest within " + dollars(budget) + " is " + what + ".";
        }
        return "the cheapest (the faster of equal cost) is " + what + ".";
    }

    /** Names a measured row the cluster could run if it were priced otherwise (spot). */
    private static String cheaperElsewhere(PlanRow pick, List<PlanRow> rows) {
        return rows.stream().filter(r -> r.measured() && !r.runnable())
                .filter(r -> r.usd() < pick.usd() && r.seconds() <= pick.seconds())
                .min(JobPlan::cheaperThenFaster)
                .map(r -> " Row " + r.row() + " (" + r.market().word() + ") would cost "
                        + dollars(r.usd()) + ": " + r.unavailable() + ".").orElse("");
    }

    private static String none(List<PlanRow> rows, double budget, double deadline) {
        Optional<PlanRow> fastest = rows.stream().filter(PlanRow::runnable).findFirst();
        if (fastest.isEmpty()) {
            return "no configuration could be measured on this cluster.";
        }
        Optional<PlanRow> cheapest = rows.stream().filter(PlanRow::runnable)
                .filter(r -> !Double.isNaN(r.usd())).min(JobPlan::cheaperThenFaster);
        List<String> limits = new ArrayList<>();
        if (!Double.isNaN(deadline)) {
            limits.add("finishes within " + duration(deadline) + " (the fastest takes "
                    + duration(fastest.get().seconds()) + ")");
        }
        if (!Double.isNaN(budget)) {
            limits.add("costs at most " + dollars(budget) + cheapest.map(c -> " (the cheapest"
                    + " costs " + dollars(c.usd()) + ")").orElse(""));
        }
        return limits.isEmpty() ? "no measured configuration has a known price."
                : "no configuration " + String.join(" and ", limits) + ".";
    }

    /**
     * Writes a time as the plan shows it: {@code 42 s}, {@code 3.5 min}, {@code 1.2 h}.
     *
     * @param seconds the time
     * @return the words
     */
    public static String duration(double seconds) {
        if (seconds < 120) {
            return String.format(Locale.ROOT, "%.0f s", seconds);
        }
        if (seconds < 7200) {
            return String.format(Locale.ROOT, "%.1f min", seconds / 60);
        }
        return String.format(Locale.ROOT, "%.1f h", seconds / 3600);
    }

    /**
     * Writes dollars as the plan shows them: four decimals below a dollar.
     *
     * @param usd the amount
     * @return e.g. {@code $0.0123} or {@code $4.56}
     */
    public static String dollars(double usd) {
        return usd < 1 ? String.format(Locale.ROOT, "$%.4f", usd)
                : String.format(Locale.ROOT, "$%,.2f", usd);
    }
}
