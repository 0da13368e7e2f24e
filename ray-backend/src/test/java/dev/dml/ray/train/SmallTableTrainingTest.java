package dev.dml.ray.train;

import static dev.dml.ray.train.RealTableJobs.accuracy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.Vocabulary;
import dev.dml.events.JobNotice;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.SklearnTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 28: small real tables from scikit-learn's package (iris, wine), written by pandas and
 * split as scikit-learn splits them, train with dml's defaults (the issue's {@code --hidden 32
 * --workers 2 --epochs 60}, the default batch) to within 3 points of scikit-learn's
 * LogisticRegression on the same split; a run cut short says more epochs would help, in the
 * words of the surface, and a converged run does not.
 */
class SmallTableTrainingTest extends SklearnTableCase {

    @BeforeAll
    static void write() throws IOException {
        start("iris", "wine");
    }

    /** The job: --hidden 32 --workers 2 --epochs N, validated on the held-out rows. */
    private static TrainSpec job(SklearnTables.Split s, int epochs) {
        return TrainSpec.builder().setTable(s.train())
                .setColumns(ColumnSelection.allExcept(s.train(), "label", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 32).optWorkers(2).optEpochs(epochs)
                .optValidationTable(s.test()).optCpusPerWorker(0).optName("small").build();
    }

    private static TrainResult run(TrainSpec spec, FakeDriverContext ctx) {
        TrainResult r = JobRunner.of(spec, spec.name(), Duration.ofMinutes(2)).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        return r;
    }

    private static List<String> stillImproving(FakeDriverContext ctx) {
        return ctx.events(JobNotice.class).stream()
                .map(n -> Vocabulary.NOTEBOOK.render(n.template()))
                .filter(n -> n.startsWith("Still improving")).toList();
    }

    @Test
    void theDefaultsComeWithinThreePointsOfLogisticRegressionAndSayNothingOnceConverged() {
        for (String name : List.of("iris", "wine")) {
            SklearnTables.Split s = tables.split(name);
            TrainSpec spec = job(s, 60);
            // 56 (iris) and 66 (wine) rows per worker: batches of 4, 14 and 16 steps an epoch
            assertEquals(4, spec.batchSize(), name);
            assertTrue(spec.stepsPerEpoch() >= 14, name + ": " + spec.stepsPerEpoch());
            FakeDriverContext ctx = new FakeDriverContext();
            TrainResult r = run(spec, ctx);
            double acc = accuracy(r.predict(s.test()).stringColumn("predicted"),
                    s.test().stringColumn("label"));
            System.out.printf("%s: dml %.4f, LogisticRegression %.4f, last losses %s%n", name,
                    acc, s.logisticRegression(), r.epochs().subList(56, 60).stream()
                            .map(e -> String.format("%.4f", e.validationLoss())).toList());
            assertTrue(acc >= s.logisticRegression() - 0.03, name + ": dml " + acc
                    + ", LogisticRegression " + s.logisticRegression());
            assertEquals(List.of(), stillImproving(ctx), name);
            assertNull(r.stillImproving(), name);
        }
    }

    @Test
    void aRunCutShortSaysMoreEpochsWouldLikelyHelp() {
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = run(job(tables.split("wine"), 6), ctx);
        List<String> said = stillImproving(ctx);
        System.out.println(said);
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).matches("Still improving: the validation loss fell over the last"
                + " 3 epochs, from \\S+ to \\S+; more --epochs would likely help\\."), said.get(0));
        assertTrue(r.stillImproving().endsWith("more optEpochs would likely help."),
                r.stillImproving());
        assertTrue(r.toString().contains("\n" + r.stillImproving()), r.toString());
    }
}
