package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.Table;

/**
 * {@link ModelExport} on models with random parameters (non-zero biases too), loaded back by a
 * plain DJL program and by PyTorch, each without dml: a logistic regression with a sigmoid,
 * whose standardisation is folded into its one linear layer, and a CNN, whose is not.
 */
class ModelExportTest {

    /** A saved model's description, and dml's predictions of the test rows. */
    private record Saved(JsonObject meta, float[][] expected) {}

    @Test
    void aSigmoidLogisticRegressionLoadsInDjlAndPyTorch(@TempDir Path dir) throws Exception {
        Table t = table("f", 6, 40, 1);
        ColumnSelection sel = ColumnSelection.builder().addFeatureRange("f", 0, 5).build();
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.LOGISTIC_REGRESSION).setInputs(6)
                .setOutputs(1).optObjective(Objective.SIGMOID_BINARY_CROSS_ENTROPY)
                .optStandardize(FeatureStats.of(t, sel)).build();
        Saved saved = saveAndCompare(spec, t, sel, dir);
        JsonObject meta = saved.meta();
        assertEquals("sigmoid", meta.get("output").getAsString());
        assertTrue(meta.getAsJsonObject("safetensors").get("standardization_folded")
                .getAsBoolean());
        assertEquals(List.of("f0", "f1", "f2", "f3", "f4", "f5"), List.of(new com.google.gson
                .Gson().fromJson(meta.get("features"), String[].class)));
        assertFalse(meta.has("class_names"));
        pyTorchPredictsTheSame(saved, dir);
    }

    @Test
    void aCnnLoadsInDjlAndPyTorch(@TempDir Path dir) throws Exception {
        Table t = table("p", 64, 12, 2);
        ColumnSelection sel = ColumnSelection.builder().addFeatureRange("p", 0, 63).build();
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.CNN).optImage(1, 8, 8)
                .optConvChannels(2, 3).addHidden(5).setOutputs(3)
                .optStandardize(FeatureStats.of(t, sel)).build();
        Saved saved = saveAndCompare(spec, t, sel, dir);
        JsonObject meta = saved.meta();
        assertEquals("softmax", meta.get("output").getAsString());
        assertFalse(meta.getAsJsonObject("safetensors").get("standardization_folded")
                .getAsBoolean(), "a convolution cannot take a per-pixel standardisation");
        assertEquals("unflatten", meta.getAsJsonArray("layers").get(0).getAsJsonObject()
                .get("type").getAsString());
        pyTorchPredictsTheSame(saved, dir);
    }

    @Test
    void savingTwiceReplacesTheFiles(@TempDir Path dir) throws Exception {
        ModelSpec spec = ModelSpec.mlp(3, 2, 4);
        ModelExport.Info info = new ModelExport.Info(List.of("a", "b", "c"), "y",
                List.of("no", "yes"));
        try (ModelStage whole = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "t")) {
            ModelExport.save(whole, info, dir);
            ModelExport.save(whole, info, dir);
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of("dml-model.json", "model-0000.params", "model.safetensors"),
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        JsonObject meta = JsonParser.parseString(Files.readString(dir.resolve("dml-model.json")))
                .getAsJsonObject();
        assertEquals("[\"no\",\"yes\"]", meta.get("class_names").toString());
        assertEquals("y", meta.get("label").getAsString());
    }

    /** Saves a model with random parameters; both loaders must predict as dml does. */
    private static Saved saveAndCompare(ModelSpec spec, Table t, ColumnSelection sel,
            Path dir) throws Exception {
        Path model = dir.resolve("model");
        float[][] expected;
        try (ModelStage whole = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "t")) {
            SplittableRandom rnd = new SplittableRandom(7);
            float[] params = new float[whole.parameterCount()];
            for (int i = 0; i < params.length; i++) {
                params[i] = (float) (rnd.nextDouble() - 0.5);
            }
            whole.setParameters(params);
            expected = Predictions.scores(whole, t, sel);
            ModelExport.save(whole, new ModelExport.Info(sel.features(), null, null), model);
        }
        Path csv = dir.resolve("rows.csv");
        t.write().csv(csv.toString());
        ExternalLoaders.assertSame(expected, ExternalLoaders.plainDjl(model, csv,
                Files.createDirectories(dir.resolve("djl"))), 1e-5);
        return new Saved(JsonParser.parseString(Files.readString(
                model.resolve("dml-model.json"))).getAsJsonObject(), expected);
    }

    /** Last in a test: without a Python with torch it skips the test, saying why. */
    private static void pyTorchPredictsTheSame(Saved saved, Path dir) throws Exception {
        ExternalLoaders.assertSame(saved.expected(), ExternalLoaders.torch(dir.resolve("model"),
                dir.resolve("rows.csv"), Files.createDirectories(dir.resolve("torch"))), 1e-4);
    }

    /** Features far from zero mean and unit scale, so the standardisation matters. */
    private static Table table(String prefix, int features, int rows, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Table t = Table.create("rows");
        for (int f = 0; f < features; f++) {
            float[] v = new float[rows];
            double scale = 1 + 10 * f;
            for (int r = 0; r < rows; r++) {
                v[r] = (float) (100 * f + scale * (rnd.nextDouble() - 0.5));
            }
            t.addColumns(FloatColumn.create(prefix + f, v));
        }
        return t;
    }
}
