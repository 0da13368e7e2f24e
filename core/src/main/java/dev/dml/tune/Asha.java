package dev.dml.tune;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Asynchronous successive halving (ASHA, Li et al. 2020), deciding as Ray Tune's {@code
 * ASHAScheduler} does. Rungs sit at {@code grace x reduction^k} epochs below the trials' last
 * epoch. When a trial reports a rung's epoch (or passes it), its value is compared with the
 * values recorded at that rung so far: below their {@code (1 - 1/reduction)} quantile, it
 * stops; either way its value is recorded there. No trial waits for others: the first trial
 * at a rung always goes on, and a late weak one stops as soon as it reaches the rung.
 *
 * <p>Values are compared so that higher is better; a loss is negated on the way in. Thread-safe:
 * trials report from their own threads.
 */
public final class Asha {

    private final int[] rungs;
    private final int reduction;
    private final boolean higherIsBetter;
    /** Per rung: each trial's value recorded there, higher is better. */
    private final List<Map<String, Double>> recorded = new ArrayList<>();

    /**
     * A scheduler for trials of {@code maxEpochs} epochs.
     *
     * @param maxEpochs the epochs a trial runs when nothing stops it
     * @param grace the first rung's epochs
     * @param reduction the reduction factor: 1/reduction of the trials go on from a rung
     * @param higherIsBetter whether a higher metric is better (accuracy) or a lower (a loss)
     * @throws DmlException when reduction is below 2 or grace below 1
     */
    public Asha(int maxEpochs, int grace, int reduction, boolean higherIsBetter) {
        if (reduction < 2) {
            throw new DmlException("{reduction} must be at least 2, got " + reduction + ".",
                    "Use {reduction=3}: a third of the trials go on from each rung.");
        }
        if (grace < 1) {
            throw new DmlException("{grace-epochs} must be at least 1, got " + grace + ".",
                    "Use {grace-epochs=1}.");
        }
        List<Integer> r = new ArrayList<>();
        for (long e = grace; e < maxEpochs; e *= reduction) {
            r.add((int) e);
        }
        this.rungs = r.stream().mapToInt(Integer::intValue).toArray();
        this.reduction = reduction;
        this.higherIsBetter = higherIsBetter;
        r.forEach(x -> recorded.add(new HashMap<>()));
    }

    /**
     * Returns the rungs.
     *
     * @return the epochs at which trials may stop, ascending; empty when a trial's epochs do
     *     not reach past the first rung
     */
    public List<Integer> rungs() {
        return Arrays.stream(rungs).boxed().toList();
    }

    /**
     * Records a trial's metric after an epoch and decides whether it stops.
     *
     * @param trial the trial's id
     * @param epoch the epoch just ended, from 1
     * @param value the metric after it; NaN is never recorded and never stops a trial
     * @return whether the trial should stop now
     */
    public synchronized boolean shouldStop(String trial, int epoch, double value) {
        if (Double.isNaN(value)) {
            return false;
        }
        double v = higherIsBetter ? value : -value;
        for (int i = rungs.length - 1; i >= 0; i--) { // the highest rung it has reached
            if (epoch < rungs[i]) {
                continue;
            }
            Map<String, Double> rung = recorded.get(i);
            if (rung.containsKey(trial)) {
                return false; // counted at this rung already
            }
            boolean stop = !rung.isEmpty() && v < cutoff(rung.values());
            rung.put(trial, v);
            return stop;
        }
        return false;
    }

    /** The {@code 1 - 1/reduction} quantile, interpolated linearly as numpy's percentile. */
    private double cutoff(java.util.Collection<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double pos = (1 - 1.0 / reduction) * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }
}
