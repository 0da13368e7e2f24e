package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** RMSE, MAE and R² on values worked out by hand. */
class RegressionMetricsTest {

    private static final float[] Y = {1, 2, 3, 4};

    @Test
    void perfectPredictionsScoreR2OfOneAndNoError() {
        assertEquals(1.0, Metrics.r2(Y, Y), 1e-12);
        assertEquals(0.0, Metrics.rmse(Y, Y), 1e-12);
        assertEquals(0.0, Metrics.mae(Y, Y), 1e-12);
    }

    @Test
    void theMeanScoresR2OfZeroAndWorseScoresBelow() {
        float[] mean = {2.5f, 2.5f, 2.5f, 2.5f};
        assertEquals(0.0, Metrics.r2(mean, Y), 1e-12);
        assertEquals(Math.sqrt(1.25), Metrics.rmse(mean, Y), 1e-7); // (2.25+.25+.25+2.25)/4
        assertEquals(1.0, Metrics.mae(mean, Y), 1e-7);
        assertTrue(Metrics.r2(new float[] {4, 3, 2, 1}, Y) < 0, "reversed is worse than mean");
    }

    @Test
    void constantTargetsHaveNoR2() {
        float[] c = {5, 5, 5};
        assertTrue(Double.isNaN(Metrics.r2(new float[] {4, 5, 6}, c)));
    }
}
