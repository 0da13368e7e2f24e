package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.runs.Runs;
import dev.dml.ray.train.result.RunFolders;
import dev.dml.ray.train.result.TrainResult;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * A job started from Java is recorded with nothing attached: into {@code $DML_RUNS_DIR} (the
 * build's {@code target/runs}), its model reopened by the run's id; {@code opt(RECORD,
 * false)} records nothing.
 */
@Tag("cluster")
class RecordedJobsIT extends LocalClusterTests {

    private static TrainSpecBuilder spec(String name) {
        Table t = SyntheticFraud.generate(2_000, 3);
        return TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.mlp(SyntheticFraud.FEATURES + 1, 2, 8)).optEpochs(2)
                .optBatchSize(256).optValidationFraction(0.2).optCpusPerWorker(0).optName(name);
    }

    @Test
    void aJavaJobIsRecordedByDefaultAndItsModelReopensByItsRunId() {
        String name = "recorded" + ProcessHandle.current().pid();
        TrainResult result = Dml.start(spec(name).build(), driver).await();
        Dml.start(spec(name).opt(TrainOptions.RECORD, false).build(), driver).await();
        try (Runs runs = Runs.open()) {
            assertEquals(RunFolders.defaultStore(), runs.store().folder());
            Table mine = runs.table().where(runs.table().stringColumn("name").isEqualTo(name));
            assertEquals(1, mine.rowCount(), "the second job ran with recording off");
            String id = mine.stringColumn("id").get(0);
            assertEquals("finished", mine.stringColumn("status").get(0));
            assertEquals(result.globalSteps(), mine.longColumn("steps").get(0));
            assertEquals(2, mine.intColumn("epochs").get(0));
            assertTrue(mine.stringColumn("workers").get(0).contains("\"rank\":0"));
            assertEquals(result.steps().size(), runs.metrics(id).rowCount());
            Table t = SyntheticFraud.generate(50, 9);
            assertArrayEquals(result.probabilities(t, 1),
                    TrainResult.open(id).probabilities(t, 1));
            assertEquals(List.of(), runs.events(id).stringColumn("kind").asList());
        }
    }
}
