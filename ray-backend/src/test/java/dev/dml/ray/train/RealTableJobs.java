package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import java.time.Duration;
import java.util.List;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.selection.Selection;

/**
 * What the tests on real tables share: a job run in LOCAL mode, a held-out split, accuracy, and
 * a job that early stopping stops.
 */
public final class RealTableJobs {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private RealTableJobs() {}

    /**
     * Runs a job in this JVM (Ray's LOCAL mode must be started) and checks it cleaned up.
     *
     * @param spec the job
     * @return its result
     */
    public static TrainResult run(TrainSpec spec) {
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        return r;
    }

    /**
     * The penguins with their measurements (2 rows lack them), split into training rows and
     * every 4th row held out.
     *
     * @return the training and the held-out table
     */
    static Table[] measuredPenguins() {
        Table t = RealTables.penguins();
        t = t.dropWhere(t.numberColumn("bill_length_mm").isMissing());
        return new Table[] {t.dropWhere(everyFourth(t)), t.where(everyFourth(t))};
    }

    /** Every 4th row, for a held-out test table. */
    public static Selection everyFourth(Table t) {
        Selection s = Selection.withRange(0, 0);
        for (int i = 0; i < t.rowCount(); i += 4) {
            s.add(i);
        }
        return s;
    }

    /** The fraction of rows where the two columns agree. */
    public static double accuracy(StringColumn predicted, StringColumn truth) {
        int right = 0;
        for (int i = 0; i < truth.size(); i++) {
            right += predicted.get(i).equals(truth.get(i)) ? 1 : 0;
        }
        return (double) right / truth.size();
    }

    /** A job that overfits: a wide MLP at a high rate for many epochs on 569 rows. */
    public static TrainSpecBuilder overfitting(int workers) {
        Table t = RealTables.breastCancer();
        return TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.allNumericExcept(t, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 128, 128).optEpochs(60).optBatchSize(16)
                .optWorkers(workers).optLearningRate(0.01f).optValidationFraction(0.3)
                .optEarlyStop(3).optCpusPerWorker(0).optName("early");
    }

    /** Checks an early-stopped result: it stopped before the last epoch and kept the best. */
    public static void assertStoppedAtTheBest(TrainSpec spec, TrainResult r) {
        List<EpochMetrics> epochs = r.epochs();
        System.out.printf("early stop: after epoch %d of %d, kept epoch %d; %s%n",
                r.stoppedEarlyAfter(), spec.epochs(), r.keptEpoch(), epochs.stream()
                        .map(e -> String.format("%.4f", e.validationLoss())).toList());
        assertTrue(r.stoppedEarlyAfter() > 0 && r.stoppedEarlyAfter() < spec.epochs(),
                "stopped after epoch " + r.stoppedEarlyAfter());
        assertEquals(r.stoppedEarlyAfter(), epochs.size());
        EpochMetrics best = epochs.get(0);
        for (EpochMetrics e : epochs) {
            best = e.validationLoss() < best.validationLoss() ? e : best;
        }
        assertEquals(best.epoch(), r.keptEpoch());
        assertEquals(r.stoppedEarlyAfter() - 3, r.keptEpoch(), "patience of 3 epochs");
        Table validation = spec.validationTable().orElseThrow();
        double kept = accuracy(r.predict(validation).stringColumn("predicted"),
                validation.stringColumn("diagnosis"));
        assertEquals(best.validationAccuracy(), kept, 1e-12,
                "the result holds the parameters of the best epoch");
        assertTrue(r.toString().contains("stopped early after epoch " + r.stoppedEarlyAfter()));
    }
}
