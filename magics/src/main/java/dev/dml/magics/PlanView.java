package dev.dml.magics;

import dev.dml.cost.JobPlan;
import dev.dml.cost.PlanRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * How {@code %dml plan} shows a plan: a table of the configurations, and a plot of predicted
 * time against dollars with the Pareto front joined and the best row ringed. The plot is an
 * SVG with a {@code viewBox}, so it scales to the output area as the live dashboard does.
 */
final class PlanView {

    private static final int W = 640;
    private static final int H = 340;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 30;
    private static final int BOTTOM = 50;

    private PlanView() {}

    /** The table, best row marked, with the choice and the probes' cost below the title. */
    static DisplayData table(JobPlan plan) {
        List<List<String>> rows = new ArrayList<>();
        for (PlanRow r : plan.rows()) {
            rows.add(List.of((r.row() == plan.best() ? "* " : "") + r.row(),
                    String.valueOf(r.workers()), r.nodes(), rate(r.usdPerHour()),
                    r.measured() ? JobPlan.duration(r.seconds()) : "not measured",
                    r.measured() && !Double.isNaN(r.usd()) ? JobPlan.dollars(r.usd()) : "-",
                    r.pareto() ? "yes" : "", r.basis()));
        }
        String title = String.format(Locale.ROOT, "Plan for %s. Best (*): %s Probes: %s, %s.",
                plan.job(), plan.why(), JobPlan.duration(plan.probeSeconds()),
                JobPlan.dollars(plan.probeUsd()));
        return Html.table(title, List.of("row", "workers", "nodes", "$/h", "time", "cost",
                "Pareto", "how it was predicted"), rows);
    }

    /** The plot of time against dollars; rows without a measured time are left out. */
    static DisplayData chart(JobPlan plan) {
        List<PlanRow> points = plan.rows().stream().filter(PlanRow::measured)
                .filter(r -> !Double.isNaN(r.usd())).toList();
        double maxT = points.stream().mapToDouble(PlanRow::seconds).max().orElse(1) * 1.1;
        double maxUsd = points.stream().mapToDouble(PlanRow::usd).max().orElse(0) * 1.1;
        boolean free = maxUsd <= 0;
        double yMax = free ? 1 : maxUsd;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\""
                        + " style=\"max-width:%dpx;font-family:sans-serif;font-size:12px\">",
                W, H, W));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-weight=\"bold\">"
                + "Predicted time and cost, %s</text>", LEFT, Html.escape(plan.job())));
        int x0 = LEFT;
        int y0 = H - BOTTOM;
        svg.append(line(x0, y0, W - RIGHT, y0)).append(line(x0, y0, x0, TOP));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
                + "predicted wall time (up to %s)</text>", (x0 + W - RIGHT) / 2, H - 12,
                JobPlan.duration(maxT)));
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90"
                + " 14 %d)\" text-anchor=\"middle\">%s</text>", (TOP + y0) / 2, (TOP + y0) / 2,
                free ? "cost: not priced" : "predicted $ (up to " + JobPlan.dollars(maxUsd)
                        + ")"));
        List<PlanRow> front = points.stream().filter(PlanRow::pareto).toList();
        if (front.size() > 1) {
            StringBuilder path = new StringBuilder();
            for (PlanRow r : front) {
                path.append(path.length() == 0 ? "M" : " L").append(fmt(x(r.seconds(), maxT)))
                        .append(',').append(fmt(y(r.usd(), yMax)));
            }
            svg.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"#d62728\""
                    + " stroke-dasharray=\"4 3\"/>");
        }
        for (PlanRow r : points) {
            double px = x(r.seconds(), maxT);
            double py = y(r.usd(), yMax);
            svg.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"5\""
                    + " fill=\"%s\"/><text x=\"%s\" y=\"%s\">%d</text>", fmt(px), fmt(py),
                    r.pareto() ? "#d62728" : "#1f77b4", fmt(px + 7), fmt(py - 7), r.row()));
            if (r.row() == plan.best()) {
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"10\""
                        + " fill=\"none\" stroke=\"#2ca02c\" stroke-width=\"2\"/>", fmt(px),
                        fmt(py)));
            }
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555\">red: Pareto"
                + " front; green ring: best</text></svg>", W - RIGHT - 200, TOP));
        DisplayData data = new DisplayData("(plot of predicted time against cost; rows "
                + points.stream().map(r -> String.valueOf(r.row())).toList() + ")");
        data.putSVG(svg.toString());
        return data;
    }

    private static double x(double seconds, double maxT) {
        return LEFT + seconds / maxT * (W - LEFT - RIGHT);
    }

    private static double y(double usd, double maxUsd) {
        return H - BOTTOM - usd / maxUsd * (H - BOTTOM - TOP - 10);
    }

    private static String line(double x1, double y1, double x2, double y2) {
        return String.format(Locale.ROOT, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\""
                + " stroke=\"#333\"/>", fmt(x1), fmt(y1), fmt(x2), fmt(y2));
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String rate(double usdPerHour) {
        if (Double.isNaN(usdPerHour)) {
            return "unknown";
        }
        return usdPerHour == 0 ? "$0 (not priced)"
                : String.format(Locale.ROOT, "$%.4f", usdPerHour).replaceAll("0+$", "")
                        .replaceAll("\\.$", "");
    }
}
