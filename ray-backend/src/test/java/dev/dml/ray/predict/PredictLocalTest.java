package dev.dml.ray.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.PredictProgress;
import dev.dml.ray.Dml;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.RealTableJobs;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * A distributed prediction in Ray's LOCAL mode (the workers are actors of this JVM): the
 * scored table is the input, in its order, with exactly the columns and values {@link
 * TrainResult#predict} gives, for a real table with a text label and text features (penguins)
 * and a regression (diabetes). Bad input is one line.
 */
@ExtendWith(LocalRayExtension.class)
class PredictLocalTest {

    private static TrainResult penguins;
    private static Table penguinTable;
    private static TrainResult diabetes;
    private static Table diabetesTable;

    @BeforeAll
    static void train() throws IOException {
        penguinTable = RealTables.penguins();
        penguinTable = penguinTable.dropWhere(penguinTable.numberColumn("bill_length_mm")
                .isMissing());
        penguins = RealTableJobs.run(TrainSpec.builder().setTable(penguinTable)
                .setColumns(ColumnSelection.allExcept(penguinTable, "species",
                        LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(3).optBatchSize(32)
                .optCpusPerWorker(0).optName("penguins").build());
        diabetesTable = RealTables.diabetes();
        diabetes = RealTableJobs.run(TrainSpec.builder().setTable(diabetesTable)
                .setColumns(ColumnSelection.allNumericExcept(diabetesTable, "progression",
                        LabelKind.REGRESSION))
                .setModel(ModelSpec.Family.MLP, 8).optEpochs(2).optBatchSize(32)
                .optCpusPerWorker(0).optName("diabetes").build());
    }

    /** Runs the prediction's driver task in this JVM; checks it released its workers. */
    private static Table predictLocally(BatchPredictor p, Table t, List<Object> events) {
        FakeDriverContext ctx = new FakeDriverContext(e -> {
            events.add(e);
            p.deliver(e);
        });
        Table out = p.predict(t, task -> new ArrayList<>(task.run(ctx)));
        assertTrue(ctx.resources().isEmpty(), "the prediction left its workers registered");
        return out;
    }

    /**
     * The scored table is the input, then the local prediction's columns: the same classes,
     * and scores bitwise equal to the local scores of each worker's rows. (Against the whole
     * table scored at once they agree to float rounding: PyTorch's matrix product rounds
     * differently for batches of other sizes.)
     */
    private static void assertSamePredictions(TrainResult model, Table input, Table scored,
            int workers) {
        Table local = model.predict(input);
        assertEquals(input.rowCount(), scored.rowCount());
        List<String> names = new ArrayList<>(input.columnNames());
        names.addAll(local.columnNames());
        assertEquals(names, scored.columnNames());
        for (String c : input.columnNames()) { // the input's rows, in its order
            for (int r = 0; r < input.rowCount(); r++) {
                assertEquals(input.column(c).getString(r), scored.column(c).getString(r),
                        c + " row " + r);
            }
        }
        if (local.containsColumn("predicted")) {
            assertEquals(local.column("predicted").asList(),
                    scored.column("predicted").asList());
        }
        int n = input.rowCount();
        for (int w = 0; w < workers; w++) {
            int from = (int) ((long) w * n / workers);
            int to = (int) ((long) (w + 1) * n / workers);
            float[][] shard = model.scores(input.inRange(from, to));
            for (int r = from; r < to; r++) {
                for (int j = 0; j < shard[0].length; j++) {
                    float got = scored.floatColumn("p" + j).getFloat(r);
                    assertEquals(shard[r - from][j], got, "p" + j + " row " + r);
                    float whole = local.floatColumn("p" + j).getFloat(r);
                    assertEquals(whole, got, 1e-5 * Math.max(1, Math.abs(whole)));
                }
            }
        }
    }

    @Test
    void penguinsScoredByThreeWorkersAreTheLocalPredictionsWithClassNames() {
        List<Object> events = new CopyOnWriteArrayList<>();
        List<PredictProgress> progress = new CopyOnWriteArrayList<>();
        BatchPredictor p = Dml.predict(penguins).optWorkers(3).optBatchSize(20)
                .optProgress(progress::add).build();
        Table scored = predictLocally(p, penguinTable, events);
        assertSamePredictions(penguins, penguinTable, scored, 3);
        assertTrue(scored.stringColumn("predicted").unique().asList().stream()
                .allMatch(penguins.classNames()::contains));
        assertEquals(3, p.workers().size());
        PredictProgress last = progress.get(progress.size() - 1);
        assertEquals(penguinTable.rowCount(), last.rows());
        assertTrue(last.done() && last.rowsPerSecond() > 0, last.toString());
        assertEquals(0, progress.get(0).rows(), "the first progress is before any slice");
    }

    @Test
    void aRegressionGetsItsValuesInRowOrder() {
        int[] order = new int[diabetesTable.rowCount()];
        for (int i = 0; i < order.length; i++) {
            order[i] = (i * 7919) % order.length; // 7919 is prime: every row once, mixed
        }
        Table shuffled = diabetesTable.rows(order);
        BatchPredictor p = Dml.predict(diabetes).optWorkers(2).build();
        Table scored = predictLocally(p, shuffled, new ArrayList<>());
        assertSamePredictions(diabetes, shuffled, scored, 2);
        assertEquals(List.of("p0"), scored.columnNames().subList(scored.columnCount() - 1,
                scored.columnCount()));
    }

    private static String failure(Runnable r) {
        DmlException e = assertThrows(DmlException.class, r::run);
        return e.speaking(Vocabulary.JAVA).getMessage();
    }

    @Test
    void badInputIsOneLine() {
        assertTrue(failure(() -> Dml.predict(penguins).optWorkers(0)).startsWith(
                "optWorkers must be at least 1, got 0."));
        assertTrue(failure(() -> Dml.predict(null)).startsWith(
                "Dml.predict needs a trained model"));
        Dml.predict(penguins).optWorkers(2).build().check(penguinTable);
        Table noIsland = penguinTable.copy().removeColumns("island");
        String checked = failure(() -> Dml.predict(penguins).build().check(noIsland));
        assertTrue(checked.contains("island"), checked);
        String missing = failure(() -> predictLocally(Dml.predict(penguins).build(), noIsland,
                new ArrayList<>()));
        assertTrue(missing.contains("island"), missing);
        Table tiny = penguinTable.inRange(0, 2);
        assertTrue(failure(() -> predictLocally(Dml.predict(penguins).optWorkers(3).build(),
                tiny, new ArrayList<>())).startsWith("The table has 2 rows, fewer than the 3"
                        + " optWorkers asked for."));
        Table scoredAlready = penguins.predict(penguinTable).addColumns(
                penguinTable.stringColumn("island").copy());
        assertTrue(failure(() -> predictLocally(Dml.predict(penguins).build(), scoredAlready,
                new ArrayList<>())).startsWith("The table already has a column 'p0'"));
    }
}
