package dev.dml.magics;

import dev.dml.cost.JobPlan;
import dev.dml.scaling.ScaleRow;
import dev.dml.scaling.ScaleTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * How {@code %dml scale} shows its table, and the plot of speedup against workers with the
 * ideal (linear) line; an SVG with a {@code viewBox}, so it scales to the output area.
 */
final class ScaleView {

    private static final int W = 520;
    private static final int H = 320;
    private static final int PAD = 56;

    private ScaleView() {}

    /** The table, one row per size. */
    static DisplayData table(ScaleTable t) {
        List<List<String>> rows = new ArrayList<>();
        for (ScaleRow r : t.rows()) {
            rows.add(List.of(String.valueOf(r.workers()),
                    String.format(Locale.ROOT, "%,.0f ex/s", r.examplesPerSecond()),
                    String.format(Locale.ROOT, "%.2fx", r.speedup()),
                    String.format(Locale.ROOT, "%.0f%%", 100 * r.efficiency()),
                    Double.isNaN(t.target()) ? "-" : Double.isNaN(r.secondsToTarget())
                            ? "not reached" : JobPlan.duration(r.secondsToTarget()),
                    Double.isNaN(r.finalMetric()) ? "-"
                            : String.format(Locale.ROOT, "%.4f", r.finalMetric()),
                    r.usd() > 0 ? JobPlan.dollars(r.usd()) : "$0 (not priced)",
                    JobPlan.duration(r.wallSeconds())));
        }
        String target = Double.isNaN(t.target()) ? "time to target"
                : String.format(Locale.ROOT, "time to %s %.3f", t.metric(), t.target());
        return Html.table("Scaling of " + t.job() + ".", List.of("workers", "throughput",
                "speedup", "efficiency", target, "final " + t.metric(), "cost", "wall time"),
                rows);
    }

    /** Speedup against workers, with the ideal line. */
    static DisplayData chart(ScaleTable t) {
        List<ScaleRow> rows = t.rows();
        int base = rows.get(0).workers();
        int maxW = rows.get(rows.size() - 1).workers();
        double maxS = Math.max(maxW / (double) base, rows.stream()
                .mapToDouble(ScaleRow::speedup).max().orElse(1)) * 1.1;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\""
                        + " style=\"max-width:%dpx;font-family:sans-serif;font-size:12px\">"
                        + "<text x=\"%d\" y=\"18\" font-weight=\"bold\">Speedup over %d %s"
                        + "</text>", W, H, W, PAD, base, base == 1 ? "worker" : "workers"));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
                + " stroke=\"#333\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
                + " stroke=\"#333\"/>", PAD, H - PAD, W - 20, H - PAD, PAD, H - PAD, PAD, 30));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
                + "workers</text><text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\""
                + " text-anchor=\"middle\">speedup (up to %.1fx)</text>", (PAD + W - 20) / 2,
                H - 14, H / 2, H / 2, maxS));
        svg.append(String.format(Locale.ROOT, "<path d=\"M%s,%s L%s,%s\" stroke=\"#999\""
                + " stroke-dasharray=\"4 3\" fill=\"none\"/>", x(base, base, maxW),
                y(1, maxS), x(maxW, base, maxW), y(maxW / (double) base, maxS)));
        StringBuilder path = new StringBuilder();
        for (ScaleRow r : rows) {
            String px = x(r.workers(), base, maxW);
            String py = y(r.speedup(), maxS);
            path.append(path.length() == 0 ? "M" : " L").append(px).append(',').append(py);
            svg.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"4\""
                    + " fill=\"#1f77b4\"/><text x=\"%s\" y=\"%d\" text-anchor=\"middle\">%d"
                    + "</text>", px, py, px, H - PAD + 16, r.workers()));
        }
        svg.append("<path d=\"").append(path).append("\" stroke=\"#1f77b4\" fill=\"none\"/>")
                .append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"40\" fill=\"#555\">"
                        + "blue: measured; grey dashes: ideal</text></svg>", W - 230));
        DisplayData data = new DisplayData("(plot of speedup against workers: "
                + rows.stream().map(r -> String.format(Locale.ROOT, "%d: %.2fx", r.workers(),
                        r.speedup())).toList() + ")");
        data.putSVG(svg.toString());
        return data;
    }

    private static String x(int workers, int base, int maxW) {
        double f = maxW == base ? 0.5 : (workers - base) / (double) (maxW - base);
        return String.format(Locale.ROOT, "%.1f", PAD + 20 + f * (W - PAD - 60));
    }

    private static String y(double speedup, double maxS) {
        return String.format(Locale.ROOT, "%.1f", H - PAD - speedup / maxS * (H - PAD - 40));
    }
}
