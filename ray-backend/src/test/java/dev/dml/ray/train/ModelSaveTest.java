package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Model;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.translate.NoopTranslator;
import dev.dml.DmlException;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.data.TableArrays;
import dev.dml.ray.model.ExternalLoaders;
import dev.dml.ray.model.FolderSwap;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import dev.dml.ray.train.runner.TrainLocalTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * A model trained by a real job (Ray's in-process LOCAL mode) goes out as a user takes it: as a
 * DJL {@link Model} in this JVM ({@link TrainResult#openModel}), and through {@link
 * TrainResult#save} into a plain DJL program and PyTorch, each predicting what dml predicts.
 */
@ExtendWith(LocalRayExtension.class)
class ModelSaveTest {

    private static final ColumnSelection SEL = SyntheticFraud.selection();
    private static TrainResult result;
    private static Table test;

    @BeforeAll
    static void train() throws IOException {
        Table t = SyntheticFraud.generate(512, 11);
        test = SyntheticFraud.generate(50, 12);
        result = JobRunner.of(TrainSpec.builder().setTable(t).setColumns(SEL)
                        .setModel(TrainLocalTest.mlp(t)).optOptimizer(OptimizerSpec.adam(1e-2f))
                        .optEpochs(2).optBatchSize(32).optWorkers(1).optCpusPerWorker(0)
                        .optName("save").build(), "save", Duration.ofMinutes(2))
                .run(new FakeDriverContext());
    }

    @Test
    void openModelIsADjlModelThatPredictsAsDml() throws Exception {
        float[][] expected = result.scores(test);
        try (Model model = result.openModel();
             Predictor<NDList, NDList> predictor = model.newPredictor(new NoopTranslator());
             NDManager manager = NDManager.newBaseManager()) {
            NDArray x = TableArrays.openFeatures(test, SEL.featuresOnly(), manager);
            float[] p = predictor.predict(new NDList(x)).singletonOrThrow().softmax(1)
                    .toFloatArray();
            float[][] actual = new float[test.rowCount()][2];
            for (int r = 0; r < actual.length; r++) {
                actual[r] = new float[] {p[2 * r], p[2 * r + 1]};
            }
            ExternalLoaders.assertSame(expected, actual, 1e-6);
        }
    }

    @Test
    void aSavedModelPredictsAsDmlInPlainDjl(@TempDir Path dir) throws Exception {
        Path model = saveWithTestRows(dir);
        ExternalLoaders.assertSame(result.scores(test), ExternalLoaders.plainDjl(model,
                dir.resolve("test.csv"), Files.createDirectories(dir.resolve("djl"))), 1e-5);
        String json = Files.readString(model.resolve("dml-model.json"));
        assertTrue(json.contains("\"label\": \"is_fraud\""), json);
        assertTrue(json.contains("\"amount\""), json);
    }

    @Test
    void aSavedModelPredictsAsDmlInPyTorch(@TempDir Path dir) throws Exception {
        Path model = saveWithTestRows(dir);
        float[][] expected = result.scores(test);
        assertEquals(50, expected.length);
        ExternalLoaders.assertSame(expected, ExternalLoaders.torch(model,
                dir.resolve("test.csv"), Files.createDirectories(dir.resolve("torch"))), 1e-4);
    }

    /**
     * Issue 26, row 8: a save that fails half-way (the disk fills after the new dml-result.ser
     * is written) leaves the earlier save whole, byte for byte, and it opens and predicts as
     * before; so does a crash between the swap's two renames. A save never deletes a file it
     * did not write.
     */
    @Test
    void row8AFailedSaveLeavesTheEarlierOneWhole(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("fraud-model");
        result.save(model);
        Map<String, byte[]> before = contents(model);
        assertEquals(Set.of("dml-result.ser", "dml-model.json", "model-0000.params",
                "model.safetensors"), before.keySet());
        IOException full = assertThrows(IOException.class, () -> FolderSwap.replace(model,
                before.keySet(), folder -> {
                    Files.write(folder.resolve("dml-result.ser"), new byte[] {1, 2, 3});
                    throw new IOException("No space left on device");
                }));
        assertEquals("No space left on device", full.getMessage());
        assertContentsEqual(before, contents(model));
        assertEquals(List.of("fraud-model"), names(dir), "nothing left beside it");
        ExternalLoaders.assertSame(result.scores(test), TrainResult.open(model).scores(test),
                0);

        Files.move(model, dir.resolve(".fraud-model.previous")); // a crash between the renames
        ExternalLoaders.assertSame(result.scores(test), TrainResult.open(model).scores(test),
                0);
        result.save(model);
        assertContentsEqual(before, contents(model));
        assertEquals(List.of("fraud-model"), names(dir));

        Files.writeString(model.resolve("notes.txt"), "mine");
        DmlException e = assertThrows(DmlException.class, () -> result.save(model));
        assertEquals("The folder " + model + " holds [notes.txt], which no model save wrote;"
                + " a save replaces the whole folder.", e.what());
        assertEquals("mine", Files.readString(model.resolve("notes.txt")));
    }

    private static Map<String, byte[]> contents(Path folder) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        for (String n : names(folder)) {
            out.put(n, Files.readAllBytes(folder.resolve(n)));
        }
        return out;
    }

    private static List<String> names(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static void assertContentsEqual(Map<String, byte[]> expected,
            Map<String, byte[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((n, b) -> assertArrayEquals(b, actual.get(n), n));
    }

    /** Saves the model to {@code dir/fraud-model} and the test rows to {@code dir/test.csv}. */
    private static Path saveWithTestRows(Path dir) throws IOException {
        Path model = dir.resolve("fraud-model");
        result.save(model);
        test.write().csv(dir.resolve("test.csv").toString());
        return model;
    }
}
