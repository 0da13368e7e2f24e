package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.RegressionMetrics;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.Objective;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * scikit-learn's diabetes table (a disease-progression score, 25 to 346) trained as a
 * regression in Ray's LOCAL mode: the validation rows get RMSE, MAE and R² every epoch, and a
 * trained model explains clearly more than the mean does.
 */
class RegressionTrainingTest {

    @Test
    void diabetesGetsRegressionMetricsAndBeatsTheMean() throws IOException {
        LocalRay.start();
        try {
            trainDiabetes();
        } finally {
            LocalRay.stop();
        }
    }

    private static void trainDiabetes() {
        Table t = RealTables.diabetes();
        TrainSpec spec = TrainSpec.builder().setTable(t)
                .setColumns(ColumnSelection.allNumericExcept(t, "progression",
                        LabelKind.REGRESSION))
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION) // one linear layer, L2: OLS
                .optOptimizer(OptimizerSpec.sgd(0.01f, 0.9f)).optEpochs(30).optBatchSize(16)
                .optWorkers(2).optValidationFraction(0.25).optCpusPerWorker(0)
                .optName("diabetes").build();
        TrainResult r = RealTableJobs.run(spec);
        assertEquals(Objective.L2, r.model().objective());
        for (EpochMetrics e : r.epochs()) {
            assertTrue(e.validationRegression().known(), "epoch " + e.epoch());
            assertTrue(Double.isNaN(e.validationAccuracy()));
        }
        RegressionMetrics m = r.validationRegression();
        System.out.printf("diabetes: validation RMSE %.2f, MAE %.2f, R² %.3f%n", m.rmse(),
                m.mae(), m.r2());
        // ordinary least squares gets about 0.5 on held-out rows
        assertTrue(m.r2() > 0.3, "validation R² " + m.r2());
        assertTrue(m.mae() < m.rmse() && m.rmse() < 70, m.toString());
        Table val = spec.validationTable().orElseThrow();
        float[] y = toFloats(val.numberColumn("progression").asDoubleArray());
        float[] mean = new float[y.length];
        Arrays.fill(mean, (float) spec.trainTable().numberColumn("progression").mean());
        double constant = Metrics.r2(mean, y);
        assertTrue(constant < 0.05, "the training mean scores R² " + constant);
        float[][] p = r.scores(val);
        float[] predicted = new float[p.length];
        for (int i = 0; i < p.length; i++) {
            predicted[i] = p[i][0];
        }
        assertEquals(m.r2(), Metrics.r2(predicted, y), 1e-3, "the worker's R² is the model's");
        Table table = r.epochMetrics();
        assertEquals(m.r2(), table.doubleColumn("val_r2").get(table.rowCount() - 1), 1e-9);
        assertTrue(table.doubleColumn("val_accuracy").isMissing(0));
    }

    private static float[] toFloats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }
}
