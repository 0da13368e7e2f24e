package dev.dml.ray.train.result;

import dev.dml.events.EpochMetrics;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.StepMetrics;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.Table;

/** A job's metrics as Tablesaw tables, for the notebook's next cell, and as one line. */
public final class MetricTables {

    private MetricTables() {}

    static Table steps(String job, List<StepMetrics> steps) {
        return Table.create(job + " steps", longs("step", steps, StepMetrics::step),
                ints("epoch", steps, StepMetrics::epoch), doubles("loss", steps, StepMetrics::loss),
                doubles("examples_per_s", steps, StepMetrics::examplesPerSecond),
                doubles("compute_ms", steps, StepMetrics::computeMillis),
                doubles("allreduce_ms", steps, StepMetrics::commMillis),
                longs("allreduce_bytes", steps, StepMetrics::allReduceBytes),
                doubles("lr", steps, StepMetrics::learningRate));
    }

    static Table epochs(String job, List<EpochMetrics> epochs) {
        return Table.create(job + " epochs", ints("epoch", epochs, EpochMetrics::epoch),
                longs("steps", epochs, EpochMetrics::steps),
                doubles("train_loss", epochs, EpochMetrics::trainLoss),
                doubles("seconds", epochs, EpochMetrics::seconds),
                doubles("examples_per_s", epochs, EpochMetrics::examplesPerSecond),
                doubles("val_loss", epochs, EpochMetrics::validationLoss),
                doubles("val_accuracy", epochs, EpochMetrics::validationAccuracy),
                doubles("val_auc", epochs, EpochMetrics::validationAuc),
                doubles("val_rmse", epochs, e -> e.validationRegression().rmse()),
                doubles("val_mae", epochs, e -> e.validationRegression().mae()),
                doubles("val_r2", epochs, e -> e.validationRegression().r2()));
    }

    /** A column of one value per row, in the rows' order. */
    private static <R> IntColumn ints(String name, List<R> rows, ToIntFunction<R> value) {
        return IntColumn.create(name, rows.stream().mapToInt(value).toArray());
    }

    private static <R> LongColumn longs(String name, List<R> rows, ToLongFunction<R> value) {
        return LongColumn.create(name, rows.stream().mapToLong(value).toArray());
    }

    private static <R> DoubleColumn doubles(String name, List<R> rows,
            ToDoubleFunction<R> value) {
        return DoubleColumn.create(name, rows.stream().mapToDouble(value).toArray());
    }

    /** The last known regression metrics of the epochs, or none. */
    static RegressionMetrics lastRegression(List<EpochMetrics> epochs) {
        for (int i = epochs.size() - 1; i >= 0; i--) {
            if (epochs.get(i).validationRegression().known()) {
                return epochs.get(i).validationRegression();
            }
        }
        return RegressionMetrics.NONE;
    }

    /** A result in one line: its steps, epochs, loss, workers, time, stops and recoveries. */
    public static String summary(TrainResult r) {
        return "TrainResult[" + r.job() + ": " + r.globalSteps() + " steps, " + r.epochs().size()
                + " epochs, final loss " + r.finalLoss() + ", " + r.workers().size()
                + " workers, " + String.format("%.1f s", r.wallSeconds())
                + (r.stopped() ? ", stopped" : "")
                + (r.stoppedEarlyAfter() == 0 ? "" : ", stopped early after epoch "
                        + r.stoppedEarlyAfter() + " keeping epoch " + r.keptEpoch())
                + (r.recoveries().isEmpty() ? "" : String.format(", %d recoveries (%.1f s, %d"
                        + " steps redone)", r.recoveries().size(), r.recoverySeconds(),
                        r.stepsRedone())) + "]"
                + (r.stillImproving() == null ? "" : "\n" + r.stillImproving());
    }
}
