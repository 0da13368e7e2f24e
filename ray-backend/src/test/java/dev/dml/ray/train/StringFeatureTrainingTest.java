package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static dev.dml.ray.train.RealTableJobs.accuracy;
import static dev.dml.ray.train.RealTableJobs.everyFourth;
import static dev.dml.ray.train.RealTableJobs.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ExternalLoaders;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The Palmer penguins, a real table with a text label ({@code species}) and text features
 * ({@code island}, {@code sex}, some missing), trained on as they are (Ray's LOCAL mode): the
 * text features are one-hot encoded with categories learnt on the training rows, an unseen
 * island predicts without error, and the saved model predicts the same in dml, plain DJL and
 * PyTorch.
 */
@ExtendWith(LocalRayExtension.class)
class StringFeatureTrainingTest {

    /** Adelie, the most frequent species: 151 of the 342 measured penguins. */
    private static final String MAJORITY = "Adelie";

    private static Table train;
    private static Table test;
    private static TrainResult all;

    @BeforeAll
    static void trainOnEveryColumn() throws IOException {
        Table t = RealTables.penguins();
        // the measurements are numbers: a row without them cannot be a row of numbers
        t = t.dropWhere(t.numberColumn("bill_length_mm").isMissing());
        test = t.where(everyFourth(t));
        train = t.dropWhere(everyFourth(t));
        all = run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.allExcept(t, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(15).optBatchSize(16).optWorkers(2)
                .optLearningRate(0.01f).optValidationFraction(0.2).optCpusPerWorker(0)
                .optName("penguins").build());
    }

    private static double majorityRate(Table t) {
        StringColumn always = StringColumn.create("c", t.rowCount());
        always.setMissingTo(MAJORITY);
        return accuracy(always, t.stringColumn("species"));
    }

    @Test
    void everyColumnTrainsWithTheTextOnesOneHot() {
        Map<String, List<String>> cats = all.columns().vocabulary().categories();
        assertEquals(List.of("island", "sex"), List.copyOf(cats.keySet()));
        assertEquals(List.of("Biscoe", "Dream", "Torgersen"), cats.get("island"));
        // NA is a missing value, not a category; the two sexes are near equal in number, so
        // their order (most frequent in the training rows first) depends on the split
        List<String> sexes = cats.get("sex");
        assertEquals(Set.of("male", "female"), Set.copyOf(sexes));
        assertEquals(List.of("island=Biscoe", "island=Dream", "island=Torgersen",
                "island=(other)", "bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                "body_mass_g", "sex=" + sexes.get(0), "sex=" + sexes.get(1), "sex=(other)",
                "year"), all.columns().inputs());
        assertEquals(12, all.model().inputs());
        float[] means = all.model().standardize().means();
        float[] stds = all.model().standardize().stds();
        assertEquals(0f, means[0]);
        assertEquals(1f, stds[0], "one-hot inputs are not standardised");
        assertTrue(means[4] > 30, "a measurement is: its mean is " + means[4]);
        double acc = accuracy(all.predict(test).stringColumn("predicted"),
                test.stringColumn("species"));
        System.out.printf("penguins, every column: held-out accuracy %.3f, majority %.3f%n",
                acc, majorityRate(test));
        assertTrue(acc >= 0.9, "held-out accuracy " + acc);
        assertTrue(majorityRate(test) < 0.5);
    }

    @Test
    void islandAndSexAloneBeatTheMajorityClass() {
        TrainResult r = run(TrainSpec.builder().setTable(train)
                .setColumns(ColumnSelection.builder().addFeatures("island", "sex")
                        .setLabel("species", LabelKind.CLASSES).build())
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION).optEpochs(20).optBatchSize(16)
                .optLearningRate(0.05f).optCpusPerWorker(0).optName("islands").build());
        assertEquals(7, r.model().inputs());
        double acc = accuracy(r.predict(test).stringColumn("predicted"),
                test.stringColumn("species"));
        double majority = majorityRate(test);
        System.out.printf("penguins, island and sex: held-out accuracy %.3f, majority %.3f%n",
                acc, majority);
        // the island tells Gentoo (Biscoe only) and Chinstrap (Dream only) from Adelie: 0.71
        assertTrue(acc >= majority + 0.15, "accuracy " + acc + " against " + majority);
    }

    @Test
    void anUnseenIslandAndAMissingSexPredictClassNames() {
        Table rows = test.inRange(0, 6).copy();
        StringColumn island = rows.stringColumn("island");
        island.set(0, "Anvers");
        island.set(1, "Anvers");
        rows.stringColumn("sex").setMissing(2);
        StringColumn predicted = all.predict(rows).stringColumn("predicted");
        assertEquals(6, predicted.size());
        for (String p : predicted) {
            assertTrue(List.of("Adelie", "Chinstrap", "Gentoo").contains(p), p);
        }
    }

    @Test
    void aSavedModelOpensAndPredictsTheSameClassNames(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("penguins-model");
        all.save(model);
        TrainResult opened = TrainResult.open(model);
        assertEquals(List.of("Adelie", "Chinstrap", "Gentoo"), opened.classNames());
        assertEquals(all.predict(test).stringColumn("predicted").asList(),
                opened.predict(test).stringColumn("predicted").asList());
        float[][] expected = all.scores(test);
        float[][] again = opened.scores(test);
        for (int r = 0; r < expected.length; r++) {
            assertArrayEquals(expected[r], again[r], "row " + r);
        }
        String json = Files.readString(model.resolve("dml-model.json"));
        assertTrue(json.contains("\"class_names\": [\n    \"Adelie\",\n    \"Chinstrap\","), json);
        assertTrue(json.contains("\"island\": [\n        \"Biscoe\",\n        \"Dream\","), json);
    }

    @Test
    void aSavedModelPredictsTheSameInPlainDjlAndPyTorch(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("penguins-model");
        all.save(model);
        Table rows = test.copy();
        rows.stringColumn("island").set(0, "Anvers"); // unseen: the other input
        rows.write().csv(dir.resolve("test.csv").toString());
        float[][] expected = all.scores(rows);
        ExternalLoaders.assertSame(expected, ExternalLoaders.plainDjl(model,
                dir.resolve("test.csv"), Files.createDirectories(dir.resolve("djl"))), 1e-5);
        ExternalLoaders.assertSame(expected, ExternalLoaders.torch(model,
                dir.resolve("test.csv"), Files.createDirectories(dir.resolve("torch"))), 1e-4);
    }
}
