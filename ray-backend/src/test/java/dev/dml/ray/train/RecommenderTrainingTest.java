package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.SyntheticRatings;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The mf family on a ratings table with a planted rank-3 structure ({@link SyntheticRatings}),
 * two data-parallel workers in Ray's LOCAL mode: the user and item embeddings are all-reduced
 * like any gradient, and the model predicts held-out ratings far better than the mean rating,
 * and better than user and item biases alone could.
 */
@ExtendWith(LocalRayExtension.class)
class RecommenderTrainingTest {

    private static Table ratings;
    private static TrainSpec spec;
    private static TrainResult mf;

    @BeforeAll
    static void train() throws IOException {
        ratings = SyntheticRatings.generate(200, 150, 0.2, 7);
        spec = TrainSpec.builder().setTable(ratings)
                .setColumns(ColumnSelection.builder().addFeatures("user", "item")
                        .setLabel(SyntheticRatings.RATING, LabelKind.REGRESSION).build())
                .setModel(ModelSpec.Family.MF, 4).optEpochs(25).optBatchSize(64).optWorkers(2)
                .optLearningRate(0.02f).optValidationFraction(0.2).optCpusPerWorker(0)
                .optName("ratings").build();
        mf = RealTableJobs.run(spec);
    }

    @Test
    void heldOutRatingsBeatTheMeanByAWideMargin() {
        Table val = spec.validationTable().orElseThrow();
        float[] y = floats(val.numberColumn(SyntheticRatings.RATING).asDoubleArray());
        float[] mean = new float[y.length];
        Arrays.fill(mean, (float) spec.trainTable().numberColumn(SyntheticRatings.RATING).mean());
        double constant = Metrics.rmse(mean, y);
        double model = Metrics.rmse(first(mf.scores(val)), y);
        System.out.printf("mf on %d ratings: validation RMSE %.3f, the mean rating %.3f%n",
                ratings.rowCount(), model, constant);
        assertEquals(model, mf.validationRegression().rmse(), 1e-3);
        // biases alone leave the factor term's variance, 0.75: RMSE 0.92 of the mean's 1.0;
        // this model gets 0.42 (the noise is 0.3)
        assertTrue(model < 0.6 * constant, "RMSE " + model + " against the mean's " + constant);
        assertEquals(2, mf.model().embeddings().size());
        assertEquals(List.of("user=(index)", "item=(index)"), mf.columns().inputs());
    }

    @Test
    void implicitFeedbackTrainsAsTwoClassesAndBeatsTheMajority() {
        Table t = ratings.copy();
        IntColumn liked = IntColumn.create("liked", t.rowCount());
        for (int i = 0; i < t.rowCount(); i++) {
            liked.set(i, t.doubleColumn(SyntheticRatings.RATING).get(i) > 3.5 ? 1 : 0);
        }
        t.addColumns(liked);
        TrainResult r = RealTableJobs.run(TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.builder().addFeatures("user", "item")
                        .setLabel("liked", LabelKind.CLASSES).build())
                .setModel(ModelSpec.Family.MF, 4).optEpochs(6).optBatchSize(64).optWorkers(2)
                .optLearningRate(0.02f).optValidationFraction(0.2).optCpusPerWorker(0)
                .optName("liked").build());
        assertEquals(2, r.model().outputs());
        var last = r.epochs().get(r.epochs().size() - 1);
        double liking = liked.sum() / (double) t.rowCount();
        double majority = Math.max(liking, 1 - liking);
        System.out.printf("mf on 0/1 likes: validation accuracy %.3f, AUC %.3f, majority %.3f%n",
                last.validationAccuracy(), last.validationAuc(), majority);
        // a constant predictor scores the majority's accuracy and an AUC of 0.5
        assertTrue(last.validationAccuracy() > majority + 0.05, last.toString());
        assertTrue(last.validationAuc() > 0.65, last.toString());
    }

    @Test
    void anUnseenUserPredictsFromTheItemAlone() {
        Table rows = Table.create("new", StringColumn.create("user", "nobody", "stranger", "u3"),
                IntColumn.create("item", 1000, 1000, 1000));
        float[] p = first(mf.scores(rows));
        assertEquals(p[0], p[1], "both unseen users embed to zeros");
        assertNotEquals(p[0], p[2]);
    }

    @Test
    void savingRefusesInOneLine(@TempDir Path dir) {
        DmlException e = assertThrows(DmlException.class, () -> mf.save(dir.resolve("m")));
        assertEquals("This mf model embeds the columns [user, item], and save writes formats for"
                + " plain DJL and PyTorch that have no embedding layer yet.", e.what());
        assertTrue(!Files.exists(dir.resolve("m")), "nothing written");
    }

    @Test
    void moreThanTwoColumnsAreRefusedInOneLine() {
        Table t = ratings.copy().addColumns(tech.tablesaw.api.DoubleColumn.create("age",
                new double[ratings.rowCount()]));
        DmlException e = assertThrows(DmlException.class, () -> TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.allExcept(t, SyntheticRatings.RATING,
                        LabelKind.REGRESSION)).setModel(ModelSpec.Family.MF).build());
        assertEquals("setModel(ModelSpec.Family) mf factorizes two id columns, a user and an"
                + " item; the features are 3 columns [user, item, age].", e.what());
    }

    private static float[] first(float[][] scores) {
        float[] out = new float[scores.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = scores[i][0];
        }
        return out;
    }

    private static float[] floats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }
}
