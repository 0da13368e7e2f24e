package dev.dml.ray.train;

import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.everyFourth;
import static dev.dml.ray.train.RealTableJobs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFileFixtures;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.TableReaders;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Issue 26: the penguins as a pandas user writes them (shuffled, so pandas stores the index as
 * a column; text as categoricals; Feather with its LZ4 default, Parquet with Brotli) train as
 * the CSV does (Ray's LOCAL mode): on the table's own columns only, to the same accuracy.
 */
@ExtendWith(LocalRayExtension.class)
class PandasTrainingTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws IOException {
        assertEquals(342, DataFileFixtures.writePandasPenguins(dir));
    }

    @Test
    void shuffledPenguinsFromPandasTrainOnTheirOwnColumns() {
        for (String f : List.of("penguins.feather", "penguins.parquet")) {
            Table t;
            try (RootAllocator allocator = new RootAllocator()) {
                t = TableReaders.read(dir.resolve(f), allocator);
            }
            Table test = t.where(everyFourth(t));
            Table train = t.dropWhere(everyFourth(t));
            TrainResult r = run(TrainSpec.builder().setTable(train)
                    .setColumns(ColumnSelection.allExcept(t, "species", LabelKind.CLASSES))
                    .setModel(ModelSpec.Family.MLP, 16).optEpochs(15).optBatchSize(16)
                    .optWorkers(2).optLearningRate(0.01f).optCpusPerWorker(0)
                    .optName("pandas-penguins").build());
            List<String> inputs = r.columns().inputs();
            assertEquals(12, inputs.size(), f + ": " + inputs);
            assertTrue(inputs.stream().noneMatch(i -> i.startsWith("__index")), f + ": " + inputs);
            double acc = accuracy(r.predict(test).stringColumn("predicted"),
                    test.stringColumn("species"));
            assertTrue(acc >= 0.9, f + ": held-out accuracy " + acc);
        }
    }
}
