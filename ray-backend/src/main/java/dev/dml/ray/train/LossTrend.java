package dev.dml.ray.train;

import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import java.util.List;
import java.util.Locale;

/**
 * Whether a job ended while its loss was still falling clearly, as scikit-learn's {@code
 * ConvergenceWarning} tells when an estimator stops at {@code max_iter}. The validation loss
 * (else the training loss), epoch by epoch: over the last {@value #SPAN} epochs it fell by at
 * least {@value #FALL} of itself, at least {@value #PACE} of its mean pace since the first epoch
 * (a loss that levels off towards 0 keeps falling by a few percent, but ever slower), and it
 * still fell in the last epoch. A job of {@value #SPAN} epochs or fewer is judged on its steps'
 * training loss in {@value #SPAN} + 1 equal windows.
 */
final class LossTrend {

    /** Epochs (or windows of steps) the fall is measured over. */
    static final int SPAN = 3;
    /** The relative fall over {@link #SPAN} that counts as clear. */
    static final double FALL = 0.03;
    /** The pace of the last {@link #SPAN}, relative to the job's mean pace, that still counts. */
    static final double PACE = 0.3;

    private LossTrend() {}

    /**
     * The one-line notice, as a template naming options ({@code {epochs}}), or null when the
     * loss had levelled off (or rose, or there is too little to tell).
     *
     * @param epochs the job's epochs
     * @param steps the job's steps
     * @return the notice, or null
     */
    static String notice(List<EpochMetrics> epochs, List<StepMetrics> steps) {
        String what;
        double[] loss;
        if (epochs.size() > SPAN) {
            boolean validated = epochs.stream()
                    .allMatch(e -> Float.isFinite(e.validationLoss()));
            loss = epochs.stream().mapToDouble(e -> validated ? e.validationLoss()
                    : e.trainLoss()).toArray();
            what = (validated ? "validation" : "training") + " loss fell over the last " + SPAN
                    + " epochs";
        } else if (steps.size() >= 2 * (SPAN + 1)) {
            loss = windows(steps, SPAN + 1);
            what = "training loss fell over the last " + SPAN + " of " + (SPAN + 1)
                    + " parts of its " + steps.size() + " steps";
        } else {
            return null;
        }
        int n = loss.length;
        double before = loss[n - 1 - SPAN];
        double end = loss[n - 1];
        double pace = (before - end) / SPAN;
        double meanPace = (loss[0] - end) / (n - 1);
        boolean falling = end < loss[n - 2] && before > 0 && Double.isFinite(before)
                && (before - end) / before >= FALL && pace >= PACE * meanPace;
        return falling ? String.format(Locale.ROOT, "Still improving: the %s, from %.4g to"
                + " %.4g; more {epochs} would likely help.", what, before, end) : null;
    }

    /** The mean loss of each of {@code n} equal windows of the steps, in order. */
    private static double[] windows(List<StepMetrics> steps, int n) {
        double[] out = new double[n];
        for (int w = 0; w < n; w++) {
            int from = steps.size() * w / n;
            int to = steps.size() * (w + 1) / n;
            out[w] = steps.subList(from, to).stream().mapToDouble(StepMetrics::loss).average()
                    .orElse(Double.NaN);
        }
        return out;
    }
}
