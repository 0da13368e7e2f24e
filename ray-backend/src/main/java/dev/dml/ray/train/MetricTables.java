package dev.dml.ray.train;

import dev.dml.events.EpochMetrics;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.StepMetrics;
import java.util.List;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.Table;

/** A job's metrics as Tablesaw tables, for the notebook's next cell, and as one line. */
final class MetricTables {

    private MetricTables() {}

    static Table steps(String job, List<StepMetrics> steps) {
        int n = steps.size();
        LongColumn step = LongColumn.create("step", n);
        IntColumn epoch = IntColumn.create("epoch", n);
        DoubleColumn loss = DoubleColumn.create("loss", n);
        DoubleColumn rate = DoubleColumn.create("examples_per_s", n);
        DoubleColumn compute = DoubleColumn.create("compute_ms", n);
        DoubleColumn comm = DoubleColumn.create("allreduce_ms", n);
        LongColumn bytes = LongColumn.create("allreduce_bytes", n);
        DoubleColumn lr = DoubleColumn.create("lr", n);
        for (int i = 0; i < n; i++) {
            StepMetrics m = steps.get(i);
            step.set(i, m.step());
            epoch.set(i, m.epoch());
            loss.set(i, m.loss());
            rate.set(i, m.examplesPerSecond());
            compute.set(i, m.computeMillis());
            comm.set(i, m.commMillis());
            bytes.set(i, m.allReduceBytes());
            lr.set(i, m.learningRate());
        }
        return Table.create(job + " steps", step, epoch, loss, rate, compute, comm, bytes, lr);
    }

    static Table epochs(String job, List<EpochMetrics> epochs) {
        int n = epochs.size();
        IntColumn epoch = IntColumn.create("epoch", n);
        LongColumn steps = LongColumn.create("steps", n);
        DoubleColumn loss = DoubleColumn.create("train_loss", n);
        DoubleColumn seconds = DoubleColumn.create("seconds", n);
        DoubleColumn rate = DoubleColumn.create("examples_per_s", n);
        DoubleColumn valLoss = DoubleColumn.create("val_loss", n);
        DoubleColumn valAccuracy = DoubleColumn.create("val_accuracy", n);
        DoubleColumn valAuc = DoubleColumn.create("val_auc", n);
        DoubleColumn valRmse = DoubleColumn.create("val_rmse", n);
        DoubleColumn valMae = DoubleColumn.create("val_mae", n);
        DoubleColumn valR2 = DoubleColumn.create("val_r2", n);
        for (int i = 0; i < n; i++) {
            EpochMetrics m = epochs.get(i);
            epoch.set(i, m.epoch());
            steps.set(i, m.steps());
            loss.set(i, m.trainLoss());
            seconds.set(i, m.seconds());
            rate.set(i, m.examplesPerSecond());
            valLoss.set(i, m.validationLoss());
            valAccuracy.set(i, m.validationAccuracy());
            valAuc.set(i, m.validationAuc());
            valRmse.set(i, m.validationRegression().rmse());
            valMae.set(i, m.validationRegression().mae());
            valR2.set(i, m.validationRegression().r2());
        }
        return Table.create(job + " epochs", epoch, steps, loss, seconds, rate, valLoss,
                valAccuracy, valAuc, valRmse, valMae, valR2);
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
    static String summary(TrainResult r) {
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
