package dev.dml.ray.model;

import dev.dml.DmlException;
import java.util.Arrays;

/** Evaluation metrics over heap arrays. */
public final class Metrics {

    private Metrics() {}

    /**
     * The fraction of rows whose predicted class equals the label.
     *
     * @param predicted predicted classes
     * @param labels true classes
     * @return the accuracy in {@code [0, 1]}
     */
    public static double accuracy(int[] predicted, int[] labels) {
        sameLength(predicted.length, labels.length);
        int ok = 0;
        for (int i = 0; i < labels.length; i++) {
            ok += predicted[i] == labels[i] ? 1 : 0;
        }
        return labels.length == 0 ? 0 : (double) ok / labels.length;
    }

    /**
     * The mean of the true-positive and true-negative rates of a binary prediction: 0.5 for a
     * constant guess however rare the positives are.
     *
     * @param predicted predicted classes, 0 or 1
     * @param labels true classes, 0 or 1
     * @return the balanced accuracy in {@code [0, 1]}
     */
    public static double balancedAccuracy(int[] predicted, int[] labels) {
        sameLength(predicted.length, labels.length);
        long tp = 0;
        long pos = 0;
        long tn = 0;
        long neg = 0;
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] == 1) {
                pos++;
                tp += predicted[i] == 1 ? 1 : 0;
            } else {
                neg++;
                tn += predicted[i] == 0 ? 1 : 0;
            }
        }
        return 0.5 * ((pos == 0 ? 0 : (double) tp / pos) + (neg == 0 ? 0 : (double) tn / neg));
    }

    /**
     * The area under the ROC curve of a binary score (ties count one half): the probability that
     * a random positive scores above a random negative. It does not depend on a threshold or on
     * the class balance, which makes it the metric for rare positives such as 1% fraud.
     *
     * @param scores higher means more likely positive
     * @param labels true classes, 0 or 1
     * @return the AUC in {@code [0, 1]}
     */
    public static double rocAuc(float[] scores, int[] labels) {
        sameLength(scores.length, labels.length);
        int n = scores.length;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Float.compare(scores[a], scores[b]));
        double rankSumPos = 0;
        long pos = 0;
        int i = 0;
        while (i < n) {
            int j = i;
            while (j + 1 < n && scores[order[j + 1]] == scores[order[i]]) {
                j++;
            }
            double midRank = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++) {
                if (labels[order[k]] == 1) {
                    rankSumPos += midRank;
                    pos++;
                }
            }
            i = j + 1;
        }
        long neg = n - pos;
        if (pos == 0 || neg == 0) {
            throw new DmlException(
                    "ROC AUC needs both classes, but the labels have " + pos + " positives and "
                            + neg + " negatives.",
                    "Evaluate on a larger or stratified sample.");
        }
        return (rankSumPos - pos * (pos + 1) / 2.0) / ((double) pos * neg);
    }

    /**
     * The root mean squared error of regression predictions.
     *
     * @param predicted predicted values
     * @param actual true values
     * @return the RMSE, in the targets' unit; NaN for no rows
     */
    public static double rmse(float[] predicted, float[] actual) {
        sameLength(predicted.length, actual.length);
        double sq = 0;
        for (int i = 0; i < actual.length; i++) {
            double d = (double) predicted[i] - actual[i];
            sq += d * d;
        }
        return Math.sqrt(sq / actual.length);
    }

    /**
     * The mean absolute error of regression predictions.
     *
     * @param predicted predicted values
     * @param actual true values
     * @return the MAE, in the targets' unit; NaN for no rows
     */
    public static double mae(float[] predicted, float[] actual) {
        sameLength(predicted.length, actual.length);
        double sum = 0;
        for (int i = 0; i < actual.length; i++) {
            sum += Math.abs((double) predicted[i] - actual[i]);
        }
        return sum / actual.length;
    }

    /**
     * The coefficient of determination R² = 1 - SS_res / SS_tot, SS_tot around the mean of
     * {@code actual}: 1 for perfect predictions, 0 for always predicting that mean, below 0
     * for worse.
     *
     * @param predicted predicted values
     * @param actual true values
     * @return R²; NaN when the true values are all equal (or there are none)
     */
    public static double r2(float[] predicted, float[] actual) {
        sameLength(predicted.length, actual.length);
        double mean = 0;
        for (float v : actual) {
            mean += v;
        }
        mean /= actual.length;
        double res = 0;
        double tot = 0;
        for (int i = 0; i < actual.length; i++) {
            double d = (double) predicted[i] - actual[i];
            double m = actual[i] - mean;
            res += d * d;
            tot += m * m;
        }
        return tot > 0 ? 1 - res / tot : Double.NaN;
    }

    private static void sameLength(int a, int b) {
        if (a != b) {
            throw new DmlException(
                    "Predictions and labels differ in length: " + a + " vs " + b + ".",
                    "Pass one prediction per label.");
        }
    }
}
