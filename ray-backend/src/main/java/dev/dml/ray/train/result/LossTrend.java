package dev.dml.ray.train.result;

import dev.dml.events.EpochMetrics;
import java.util.List;
import java.util.Locale;

/**
 * Whether a job ended while its loss was still falling clearly, as scikit-learn's {@code
 * ConvergenceWarning} tells when an estimator stops at {@code max_iter}. The validation loss
 * (else the training loss), epoch by epoch: over the last {@value #SPAN} epochs it fell by at
 * least {@value #FALL} of itself, at least {@value #PACE} of its mean pace since the first epoch
 * (a loss that levels off towards 0 keeps falling by a few percent, but ever slower), and it
 * still fell in the last epoch. A job of {@value #SPAN} epochs or fewer is not judged.
 */
public final class LossTrend {

    /** Epochs the fall is measured over. */
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
     * @return the notice, or null
     */
    static String notice(List<EpochMetrics> epochs) {
        if (epochs.size() <= SPAN) {
            return null;
        }
        boolean validated = epochs.stream().allMatch(e -> Float.isFinite(e.validationLoss()));
        double[] loss = epochs.stream().mapToDouble(e -> validated ? e.validationLoss()
                : e.trainLoss()).toArray();
        int n = loss.length;
        double before = loss[n - 1 - SPAN];
        double end = loss[n - 1];
        double pace = (before - end) / SPAN;
        double meanPace = (loss[0] - end) / (n - 1);
        boolean falling = end < loss[n - 2] && before > 0 && Double.isFinite(before)
                && (before - end) / before >= FALL && pace >= PACE * meanPace;
        return falling ? String.format(Locale.ROOT, "Still improving: the %s loss fell over"
                + " the last %d epochs, from %.4g to %.4g; more {epochs} would likely help.",
                validated ? "validation" : "training", SPAN, before, end) : null;
    }
}
