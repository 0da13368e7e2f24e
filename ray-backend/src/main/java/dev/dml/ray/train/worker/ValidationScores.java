package dev.dml.ray.train.worker;

import ai.djl.ndarray.NDArray;
import dev.dml.events.RegressionMetrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.Objective;
import java.util.Arrays;

/**
 * The validation rows' scores as the last stage (or a whole-model worker) computes them, a
 * chunk at a time: the mean loss, for classes the accuracy and, with a positive class, the
 * ROC AUC, and for a regression the RMSE, MAE and R². Stays in the worker.
 */
final class ValidationScores {

    private final Objective objective;
    private final int outputs;
    private final boolean classes;
    private double lossSum;
    private int rows;
    private int[] predicted = new int[0];
    private float[] positive = new float[0];
    private int[] labels = new int[0];
    /** A regression's predicted values and true targets. */
    private float[] values = new float[0];
    private float[] targets = new float[0];

    ValidationScores(ModelSpec model, boolean classes) {
        this.objective = model.objective();
        this.outputs = model.outputs();
        this.classes = classes;
    }

    /** Adds one scored chunk and its labels. */
    void add(ModelStage.Scored scored, NDArray chunkLabels) {
        int n = (int) chunkLabels.getShape().get(0);
        lossSum += (double) scored.loss() * n;
        if (classes) {
            int[] y = chunkLabels.toIntArray();
            grow(n);
            for (int i = 0; i < n; i++) {
                predicted[rows + i] = objective.predictedClass(scored.predictions(), i, outputs);
                positive[rows + i] = objective.positiveScore(scored.predictions(), i, outputs);
                labels[rows + i] = y[i];
            }
        } else {
            float[] y = chunkLabels.toFloatArray();
            growValues(n);
            for (int i = 0; i < n; i++) {
                values[rows + i] = scored.predictions()[i * outputs];
                targets[rows + i] = y[i];
            }
        }
        rows += n;
    }

    /** The metrics of every row added. */
    Evaluation result() {
        float loss = rows == 0 ? Float.NaN : (float) (lossSum / rows);
        if (!classes) {
            float[] p = Arrays.copyOf(values, rows);
            float[] y = Arrays.copyOf(targets, rows);
            RegressionMetrics m = rows == 0 ? RegressionMetrics.NONE : new RegressionMetrics(
                    Metrics.rmse(p, y), Metrics.mae(p, y), Metrics.r2(p, y));
            return new Evaluation(loss, Double.NaN, Double.NaN, m);
        }
        int[] p = Arrays.copyOf(predicted, rows);
        int[] y = Arrays.copyOf(labels, rows);
        // a small validation split may hold no positive at all: its AUC is unknown, not an error
        boolean bothClasses = Arrays.stream(y).anyMatch(v -> v == 1)
                && Arrays.stream(y).anyMatch(v -> v == 0);
        double auc = objective.hasPositiveClass(outputs) && bothClasses
                ? Metrics.rocAuc(Arrays.copyOf(positive, rows), y) : Double.NaN;
        return new Evaluation(loss, Metrics.accuracy(p, y), auc);
    }

    private void growValues(int n) {
        if (rows + n > values.length) {
            int size = Math.max(rows + n, values.length * 2);
            values = Arrays.copyOf(values, size);
            targets = Arrays.copyOf(targets, size);
        }
    }

    private void grow(int n) {
        if (rows + n > predicted.length) {
            int size = Math.max(rows + n, predicted.length * 2);
            predicted = Arrays.copyOf(predicted, size);
            positive = Arrays.copyOf(positive, size);
            labels = Arrays.copyOf(labels, size);
        }
    }
}
