package dev.dml.magics;

import java.util.List;

/** The recorded runs as {@code %dml runs} and {@code %dml compare} show them: plain data. */
public final class RunViews {

    private RunViews() {}

    /**
     * Runs of the run store, one row each, newest first.
     *
     * @param store the run store's folder
     * @param header the column names
     * @param rows the cells, one list per run
     * @param total the runs in the store, before {@code --where} and {@code --last}
     */
    public record RunList(String store, List<String> header, List<List<String>> rows,
            int total) {
        /** A view is plain data. */
        public RunList {
            header = List.copyOf(header);
            rows = rows.stream().map(List::copyOf).toList();
        }
    }

    /**
     * One run's curve of the compared metric.
     *
     * @param runId the run
     * @param x the steps or epochs
     * @param y the metric's values there
     */
    public record Curve(String runId, double[] x, double[] y) {}

    /**
     * Runs side by side.
     *
     * @param metric the metric compared, e.g. {@code val_loss}
     * @param xLabel what its curves are drawn over: {@code step} or {@code epoch}
     * @param curves each run's curve, in the order asked
     * @param header {@code setting} and then one column per run
     * @param differing each setting whose value differs between the runs: its name, then its
     *     value in each run
     */
    public record Comparison(String metric, String xLabel, List<Curve> curves,
            List<String> header, List<List<String>> differing) {
        /** A view is plain data. */
        public Comparison {
            curves = List.copyOf(curves);
            header = List.copyOf(header);
            differing = differing.stream().map(List::copyOf).toList();
        }
    }
}
