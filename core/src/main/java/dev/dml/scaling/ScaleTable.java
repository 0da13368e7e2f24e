package dev.dml.scaling;

import java.util.ArrayList;
import java.util.List;

/**
 * The same job at several sizes, as {@code %dml scale} shows it.
 *
 * @param job what ran, e.g. {@code fraud: 4 epochs of 50 steps per size}
 * @param metric the validation metric, e.g. {@code accuracy}
 * @param target the metric {@link ScaleRow#secondsToTarget} times; NaN for none
 * @param rows one per size, smallest first
 */
public record ScaleTable(String job, String metric, double target, List<ScaleRow> rows) {

    /** A table is plain data. */
    public ScaleTable {
        rows = List.copyOf(rows);
    }

    /**
     * Makes the rows from each size's measurements: speedup and efficiency against the
     * smallest size.
     *
     * @param job what ran
     * @param metric the metric's name
     * @param target the target; NaN for none
     * @param runs each size's row, speedup and efficiency not yet set, smallest first
     * @return the table
     */
    public static ScaleTable of(String job, String metric, double target, List<ScaleRow> runs) {
        List<ScaleRow> rows = new ArrayList<>();
        ScaleRow base = runs.get(0);
        for (ScaleRow r : runs) {
            double speedup = r.examplesPerSecond() / base.examplesPerSecond();
            double ideal = r.workers() / (double) base.workers();
            rows.add(new ScaleRow(r.workers(), r.examplesPerSecond(), speedup, speedup / ideal,
                    r.secondsToTarget(), r.finalMetric(), r.usd(), r.wallSeconds()));
        }
        return new ScaleTable(job, metric, target, rows);
    }
}
