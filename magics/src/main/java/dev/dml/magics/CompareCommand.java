package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.magics.live.CurveChart;
import java.util.ArrayList;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * {@code %dml compare RUN RUN ...}: recorded runs side by side, their curves of one metric
 * overlaid in one chart (the live plot's), and a table of the settings that differ.
 */
final class CompareCommand extends NamedCommand {

    static final String USAGE = "%dml compare RUN RUN ... | --last N [--metric loss|train_loss"
            + "|val_loss|val_accuracy]";

    CompareCommand() {
        super("compare", "overlay recorded runs' curves and show the settings that differ");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "",
                "RUN is an id %dml runs lists. --metric picks the curve: loss (the training"
                        + " loss per step, the default), or per epoch train_loss, val_loss,"
                        + " val_accuracy.",
                "Examples:", "  %dml compare fraud-20261127-101500-1a2b fraud-20261127-102000-3c4d",
                "  %dml compare RUN1 RUN2 RUN3 --metric val_loss",
                "  %dml compare --last 2 --metric val_accuracy   (the two newest runs)");
    }

    /** The newest {@code n} runs' ids, oldest first. */
    private static List<String> newest(CommandContext context, String n) {
        int last;
        try {
            last = Integer.parseInt(n);
        } catch (NumberFormatException e) {
            last = 0;
        }
        if (last < 1) {
            throw new DmlException("%dml compare: --last takes a count of runs, got '"
                    + DmlException.literal(n) + "'.", "For example: %dml compare --last 2.");
        }
        List<String> ids = new ArrayList<>();
        context.session().backend().runs(null, last).rows().forEach(r -> ids.add(0, r.get(0)));
        return ids;
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        if (body != null && !body.isBlank()) {
            throw new DmlException("%%dml compare takes no cell body.", "Usage: " + USAGE);
        }
        String metric = "loss";
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("--metric") && i + 1 < words.size()) {
                metric = words.get(++i);
            } else if (w.equals("--last") && i + 1 < words.size()) {
                ids.addAll(newest(context, words.get(++i)));
            } else if (w.startsWith("--")) {
                throw new DmlException("%dml compare: unknown option '"
                        + DmlException.literal(w) + "'.", "Usage: " + USAGE);
            } else if (!ids.contains(w)) {
                ids.add(w);
            }
        }
        if (ids.isEmpty()) {
            throw new DmlException("%dml compare needs the ids of the runs to compare.",
                    "Take them from %dml runs, e.g. %dml compare RUN1 RUN2 --metric val_loss");
        }
        RunViews.Comparison c = context.session().backend().compare(ids, metric);
        List<String> names = new ArrayList<>();
        List<double[][]> curves = new ArrayList<>();
        for (RunViews.Curve curve : c.curves()) {
            names.add(curve.runId());
            curves.add(new double[][] {curve.x(), curve.y()});
        }
        String title = c.metric() + " of " + ids.size() + (ids.size() == 1 ? " run" : " runs");
        DisplayData chart = new DisplayData(title + ": " + String.join(", ", names));
        chart.putSVG(CurveChart.svg(title, c.xLabel(), c.metric(), names, curves));
        context.display(chart);
        context.display(c.differing().isEmpty()
                ? Html.text(ids.size() == 1 ? "One run: nothing to tell apart."
                        : "The runs' settings are all the same.")
                : Html.table("Settings that differ", c.header(), c.differing()));
        return null;
    }
}
