package dev.dml.ray.train;

import static dev.dml.ray.train.RealTableJobs.accuracy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The Palmer penguins with {@code --embed-above 2}: {@code island} (3 values) is embedded, one
 * index input with a learnt embedding, while {@code sex} (2 values) stays one-hot. Two workers
 * in Ray's LOCAL mode all-reduce the embedding's gradients like any other.
 */
@ExtendWith(LocalRayExtension.class)
class EmbeddedFeatureTrainingTest {

    private static Table train;
    private static Table test;
    private static TrainResult model;

    @BeforeAll
    static void trainWithTheIslandEmbedded() throws IOException {
        Table[] split = RealTableJobs.measuredPenguins();
        train = split[0];
        test = split[1];
        model = RealTableJobs.run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allExcept(train, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).opt(TrainOptions.EMBED_ABOVE, 2)
                .optEpochs(15).optBatchSize(16).optWorkers(2).optLearningRate(0.01f)
                .optCpusPerWorker(0).optName("penguins-embedded").build());
    }

    @Test
    void theIslandIsOneEmbeddedInputAndTheModelPredictsWell() {
        assertTrue(model.columns().vocabulary().embeds("island"));
        assertTrue(!model.columns().vocabulary().embeds("sex"));
        List<String> inputs = model.columns().inputs();
        assertEquals("island=(index)", inputs.get(0));
        assertEquals(9, inputs.size(), inputs.toString()); // 12 one-hot, less 4 + 1
        assertArrayEquals(new int[] {0}, model.model().embeddings().positions());
        assertArrayEquals(new int[] {4}, model.model().embeddings().rows(), "3 islands and 0");
        assertEquals(0f, model.model().standardize().means()[0], "the index is not scaled");
        double acc = accuracy(model.predict(test).stringColumn("predicted"),
                test.stringColumn("species"));
        System.out.printf("penguins, island embedded: held-out accuracy %.3f%n", acc);
        // the most frequent species is 0.44 of the rows
        assertTrue(acc >= 0.9, "held-out accuracy " + acc);
    }

    @Test
    void unseenIslandsPredictAlikeAsTheReservedIndex() {
        Table rows = test.inRange(0, 3).copy();
        Table other = rows.copy();
        rows.stringColumn("island").set(0, "Anvers");
        other.stringColumn("island").set(0, "Nowhere");
        rows.stringColumn("island").setMissing(1);
        other.stringColumn("island").set(1, "Elsewhere");
        float[][] a = model.scores(rows);
        float[][] b = model.scores(other);
        assertArrayEquals(a[0], b[0]);
        assertArrayEquals(a[1], b[1], "missing and unseen both take index 0");
        StringColumn p = model.predict(rows).stringColumn("predicted");
        assertTrue(List.of("Adelie", "Chinstrap", "Gentoo").contains(p.get(0)), p.get(0));
    }

    @Test
    void savingRefusesAndSaysHowToOneHotInstead(@TempDir Path dir) {
        DmlException e = assertThrows(DmlException.class, () -> model.save(dir.resolve("m")));
        assertEquals("This model embeds the columns [island], and save writes formats for"
                + " plain DJL and PyTorch that have no embedding layer yet.", e.what());
        assertTrue(e.hint().contains("opt(TrainOptions.EMBED_ABOVE, ...)"), e.hint());
    }
}
