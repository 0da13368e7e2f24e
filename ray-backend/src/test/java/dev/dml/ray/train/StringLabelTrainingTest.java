package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.everyFourth;
import static dev.dml.ray.train.RealTableJobs.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Real tables whose label holds class names, trained on as they are: breast cancer
 * ({@code malignant}, {@code benign}) and iris (three species). The names are learnt on the
 * training table and {@code predict} returns them. Iris is also a table with fewer rows per
 * worker than the batch size asked for.
 */
@ExtendWith(LocalRayExtension.class)
class StringLabelTrainingTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @Test
    void breastCancerTrainsOnItsDiagnosisNamesAndPredictsThem() {
        Table t = RealTables.breastCancer();
        Table test = t.where(everyFourth(t));
        Table train = t.dropWhere(everyFourth(t));
        TrainResult r = run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allNumericExcept(t, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(10).optBatchSize(16).optWorkers(2)
                .optLearningRate(0.01f)
                .optValidationFraction(0.2).optCpusPerWorker(0).optName("cancer").build());
        assertEquals(List.of("benign", "malignant"), r.classNames());
        Table predicted = r.predict(test);
        StringColumn names = predicted.stringColumn("predicted");
        double acc = accuracy(names, test.stringColumn("diagnosis"));
        System.out.printf("breast cancer: held-out accuracy %.3f%n", acc);
        // scikit-learn's logistic regression gets about 0.96; always "benign" gets 0.63
        assertTrue(acc >= 0.9, "held-out accuracy " + acc);
        StringColumn benign = StringColumn.create("c", test.rowCount());
        benign.setMissingTo("benign");
        assertTrue(accuracy(benign, test.stringColumn("diagnosis")) < 0.9);
        double validation = r.epochs().get(r.epochs().size() - 1).validationAccuracy();
        assertTrue(validation >= 0.85, "validation accuracy on the held-out names " + validation);
    }

    @Test
    void irisPredictsItsThreeSpecies() {
        Table t = RealTables.iris();
        TrainResult r = run(TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.allNumericExcept(t, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION).optEpochs(40).optBatchSize(16)
                .optLearningRate(0.05f).optCpusPerWorker(0).optName("iris").build());
        assertEquals(List.of("setosa", "versicolor", "virginica"), r.classNames());
        assertEquals(3, r.model().outputs());
        double acc = accuracy(r.predict(t).stringColumn("predicted"), t.stringColumn("species"));
        System.out.printf("iris: training accuracy %.3f%n", acc);
        assertTrue(acc >= 0.9, "accuracy " + acc + "; a constant species scores 0.33");
    }

    @Test
    void aSmallTableTrainsWithSmallerBatchesAndTheCellSaysSo() {
        Table t = RealTables.iris(); // 150 rows: 75 per worker, fewer than the 128 asked for
        FakeDriverContext ctx = new FakeDriverContext();
        TrainSpec spec = TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.allNumericExcept(t, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION).optEpochs(60).optBatchSize(128)
                .optWorkers(2).optLearningRate(0.05f).optCpusPerWorker(0).optName("small")
                .build();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertEquals(List.of(new JobNotice(0, "Each of the 2 workers gets 75 training rows,"
                + " fewer than the batch size 128: it trains with batches of 75 rows. Set"
                + " {batch-size} to 75 or less to keep this message away.")),
                ctx.events(JobNotice.class));
        assertEquals(60, r.globalSteps(), "one step per epoch");
        assertEquals(150, r.steps().get(0).examples());
        double acc = accuracy(r.predict(t).stringColumn("predicted"), t.stringColumn("species"));
        System.out.printf("iris, small batches: training accuracy %.3f%n", acc);
        assertTrue(acc >= 0.9, "accuracy " + acc + "; a constant species scores 0.33");
    }

    @Test
    void aValidationTableWithASpeciesTheTrainingRowsLackIsOneLine() {
        Table t = RealTables.iris();
        Table train = t.inRange(0, 100); // setosa and versicolor only
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder()
                .setTable(train)
                .setColumns(ColumnSelection.allNumericExcept(t, "species", LabelKind.CLASSES))
                .optValidationTable(t).build());
        assertEquals("Label column 'species' has class 'virginica' at row 100, which the"
                + " training rows do not have.", e.what());
        assertEquals("The model knows 'setosa', 'versicolor'; drop or relabel those rows.",
                e.hint());
    }
}
