package dev.dml.magics;

import dev.dml.magics.live.CurveChart;
import dev.dml.tune.SearchSpace;
import dev.dml.tune.Sweep;
import dev.dml.tune.Trial;
import dev.dml.tune.TrialStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * A sweep as its cell shows it: one chart with every trial's curve of the metric (trials ASHA
 * stopped in grey), and the trials ranked by the metric with their epochs, status and cost.
 */
final class SweepView {

    private SweepView() {}

    /** The chart of every trial's metric by epoch. */
    static DisplayData chart(Sweep sweep) {
        List<String> names = new ArrayList<>();
        List<double[][]> curves = new ArrayList<>();
        List<Trial> trials = sweep.trials();
        boolean[] greyed = new boolean[trials.size()];
        long early = 0;
        for (int i = 0; i < trials.size(); i++) {
            Trial t = trials.get(i);
            List<double[]> points = t.curve();
            names.add(t.id() + " " + t.settings());
            curves.add(new double[][] {points.stream().mapToDouble(p -> p[0]).toArray(),
                points.stream().mapToDouble(p -> p[1]).toArray()});
            greyed[i] = t.status() == TrialStatus.STOPPED_EARLY;
            early += greyed[i] ? 1 : 0;
        }
        String title = sweep.metric() + " of " + trials.size() + " trials"
                + (early > 0 ? " (" + early + " stopped early, grey)" : "");
        DisplayData chart = new DisplayData(title);
        chart.putSVG(CurveChart.svg(title, "epoch", sweep.metric(), names, curves, greyed));
        return chart;
    }

    /** The trials, best first. */
    static DisplayData table(Sweep sweep, SearchSpace space) {
        List<String> header = new ArrayList<>(List.of("rank", "trial"));
        space.dimensions().forEach(d -> header.add(d.option().name()));
        boolean priced = sweep.trials().stream().anyMatch(t -> t.usd() > 0);
        header.addAll(List.of(sweep.metric(), "epochs", "status", "worker-s"));
        if (priced) {
            header.add("usd");
        }
        List<List<String>> rows = new ArrayList<>();
        int rank = 0;
        for (Trial t : sweep.ranked()) {
            List<String> row = new ArrayList<>();
            row.add(Double.isNaN(t.last()) ? "-" : Integer.toString(++rank));
            row.add(t.id());
            space.dimensions().forEach(d -> row.add(SearchSpace.text(d.option(), t.options())));
            row.add(Double.isNaN(t.last()) ? "-" : String.format(Locale.ROOT, "%.4f",
                    t.last()));
            row.add(Integer.toString(t.epochs()));
            row.add(t.status().word());
            row.add(String.format(Locale.ROOT, "%.1f", t.workerSeconds()));
            if (priced) {
                row.add(String.format(Locale.ROOT, "$%.4f", t.usd()));
            }
            rows.add(row);
        }
        return Html.table("Sweep " + sweep.id() + ": " + sweep.trials().size() + " trials, "
                + sweep.concurrent() + " at a time, ranked by " + sweep.metric(), header, rows);
    }

    /** What the sweep spent and found, in one line. */
    static String summary(Sweep sweep, String into) {
        List<Trial> trials = sweep.trials();
        long early = trials.stream().filter(t -> t.status() == TrialStatus.STOPPED_EARLY)
                .count();
        long failed = trials.stream().filter(t -> t.status() == TrialStatus.FAILED).count();
        double workerSeconds = trials.stream().mapToDouble(Trial::workerSeconds).sum();
        int epochs = trials.stream().mapToInt(Trial::epochs).sum();
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "Sweep %s: %d trials,"
                + " %d stopped early, %d failed; %d epochs, %.1f worker-seconds.", sweep.id(),
                trials.size(), early, failed, epochs, workerSeconds));
        sweep.best().ifPresentOrElse(b -> s.append(String.format(Locale.ROOT, " Best: %s (%s"
                + " %.4f; %s), bound to %s.", b.id(), sweep.metric(), b.last(), b.settings(),
                into)), () -> s.append(" No trial produced a model, so nothing is bound."));
        return s.toString();
    }
}
