package dev.dml.ray.train;

import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.SklearnTables;
import dev.dml.ray.model.ExternalLoaders;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Issue 28: a cnn takes images of any size. scikit-learn's 8x8 digits (its shape inferred from
 * the 64 pixel columns) and a synthetic 32x32x3 table ({@code --image 32x32x3}, pixels
 * channel-last as numpy flattens [n, H, W, C] images), both written by pandas; the shape
 * survives a save, for dml, plain DJL and PyTorch; a shape that does not fit is refused.
 */
class ImageTrainingTest extends SklearnTableCase {

    @BeforeAll
    static void write() throws IOException {
        start("digits", "rgb32");
    }

    private static TrainSpecBuilder cnn(Table train) {
        return TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allExcept(train, "label", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.CNN).optWorkers(2).optCpusPerWorker(0);
    }

    @Test
    void eightByEightDigitsTrainACnnToNinetyFivePercentAndKeepTheirShapeWhenSaved(
            @TempDir Path out) throws Exception {
        SklearnTables.Split digits = tables.split("digits");
        TrainResult r = run(cnn(digits.train()).optEpochs(40)
                .optLearningRate(0.01f).optName("digits").build());
        assertTrue(r.model().toString().contains("image=[1, 8, 8]"), r.model().toString());
        double acc = accuracy(r.predict(digits.test()).stringColumn("predicted"),
                digits.test().stringColumn("label"));
        System.out.printf("digits: cnn held-out accuracy %.4f (LogisticRegression %.4f)%n", acc,
                digits.logisticRegression());
        assertTrue(acc >= 0.95, "held-out accuracy " + acc);
        Path saved = out.resolve("digits-model");
        r.save(saved);
        TrainResult back = TrainResult.open(saved);
        assertEquals(r.model().toString(), back.model().toString());
        ExternalLoaders.assertSame(r.scores(digits.test()), back.scores(digits.test()), 0);
        assertTrue(Files.readString(saved.resolve("dml-model.json")).replaceAll("\\s", "")
                .contains("\"type\":\"unflatten\",\"shape\":[1,8,8]"));
    }

    @Test
    void aThirtyTwoByThirtyTwoRgbTableTrainsAndLoadsInPlainDjlAndPyTorch(@TempDir Path out)
            throws Exception {
        SklearnTables.Split rgb = tables.split("rgb32");
        TrainResult r = run(cnn(rgb.train()).optImage(32, 32, 3).optEpochs(3)
                .optLearningRate(0.003f).optName("rgb32").build());
        assertTrue(r.model().toString().contains("image=[3, 32, 32]"), r.model().toString());
        double acc = accuracy(r.predict(rgb.test()).stringColumn("predicted"),
                rgb.test().stringColumn("label"));
        System.out.printf("rgb32: cnn held-out accuracy %.4f; chance 0.33%n", acc);
        assertTrue(acc >= 0.6, "held-out accuracy " + acc + "; chance is 0.33");
        Path saved = out.resolve("rgb-model");
        r.save(saved);
        Table few = rgb.test().inRange(0, 20);
        few.write().csv(out.resolve("few.csv").toString());
        float[][] expected = r.scores(few);
        ExternalLoaders.assertSame(expected, TrainResult.open(saved).scores(few), 0);
        ExternalLoaders.assertSame(expected, ExternalLoaders.plainDjl(saved,
                out.resolve("few.csv"), Files.createDirectories(out.resolve("djl"))), 1e-5);
        ExternalLoaders.assertSame(expected, ExternalLoaders.torch(saved,
                out.resolve("few.csv"), Files.createDirectories(out.resolve("torch"))), 1e-4);
    }

    @Test
    void aShapeThatDoesNotFitTheColumnsIsRefusedInOneLine() {
        Table digits = tables.split("digits").train();
        Table rows = digits.selectColumns(digits.columnNames().subList(16, 65).toArray(
                new String[0])); // 48 pixels and the label: no square
        DmlException e = assertThrows(DmlException.class, () -> cnn(rows).build());
        assertEquals("A cnn needs its images' shape: 48 feature columns are not a square image"
                + " of one channel.", e.what());
        assertEquals("Set --image to the images' HxWxC (H x W x C = 48), such as 4x4x3, or"
                + " select only the pixel columns.", e.speaking(Vocabulary.NOTEBOOK).hint());
        e = assertThrows(DmlException.class, () -> cnn(digits).optImage(8, 8, 3).build());
        assertEquals("The shape 8x8x3 (optImage) holds 192 pixel values, but the selected"
                + " feature columns make 64.", e.what());
        assertEquals("The shape 8x8x3 (--image) holds 192 pixel values, but the selected"
                + " feature columns make 64.", e.speaking(Vocabulary.NOTEBOOK).what());
        assertEquals("Set --image so that H x W x C = 64, such as 8x8, or select the 192 pixel"
                + " columns.", e.speaking(Vocabulary.NOTEBOOK).hint());
        e = assertThrows(DmlException.class, () -> cnn(digits).setModel(ModelSpec.Family.MLP, 8)
                .optImage(8, 8, 1).build());
        assertEquals("--image shapes the images of a cnn; this job trains the mlp family.",
                e.speaking(Vocabulary.NOTEBOOK).what());
        assertEquals("Add --model cnn, or leave --image out.", e.speaking(Vocabulary.NOTEBOOK)
                .hint());
    }
}
