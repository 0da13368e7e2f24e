package dev.dml.ray.train;

import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Early stopping and a cosine schedule with warm-up on real tables, in Ray's LOCAL mode: the
 * breast cancer table overfits and stops early, keeping its best epoch; penguins train with a
 * warm-up and a cosine decay to well above the majority class.
 */
class ScheduleTrainingTest {

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    @Test
    void breastCancerStopsEarlyAndKeepsItsBestEpoch() {
        TrainSpec spec = RealTableJobs.overfitting(1).build();
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), java.time.Duration.ofMinutes(2))
                .run(ctx);
        RealTableJobs.assertStoppedAtTheBest(spec, r);
        String said = ctx.events(dev.dml.events.JobNotice.class).get(0).template();
        assertTrue(said.startsWith("{early-stop}: the validation loss has not improved for 3"
                + " epochs; stopped after epoch " + r.stoppedEarlyAfter()), said);
    }

    @Test
    void penguinsWithWarmupAndCosineBeatTheMajorityClassByFar() {
        Table t = RealTables.penguins().dropRowsWithMissingValues();
        Table test = t.where(RealTableJobs.everyFourth(t));
        Table train = t.dropWhere(RealTableJobs.everyFourth(t));
        TrainResult r = run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allNumericExcept(t, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(15).optBatchSize(16)
                .optWorkers(2).optLearningRate(0.02f).optLrSchedule("cosine").optWarmup(10)
                .optCpusPerWorker(0).optName("penguins").build());
        StringColumn truth = test.stringColumn("species");
        double acc = accuracy(r.predict(test).stringColumn("predicted"), truth);
        double majority = 0;
        for (String s : truth.unique()) {
            majority = Math.max(majority, (double) truth.isEqualTo(s).size() / truth.size());
        }
        System.out.printf("penguins, warm-up + cosine: held-out accuracy %.3f, majority %.3f%n",
                acc, majority);
        assertTrue(acc >= 0.9 && acc > majority + 0.4, "accuracy " + acc);
        double[] lr = r.metrics().doubleColumn("lr").asDoubleArray();
        assertTrue(lr[0] < 0.003 && lr[lr.length - 1] < 0.001, "warm-up and decay: "
                + lr[0] + ", " + lr[lr.length - 1]);
    }
}
