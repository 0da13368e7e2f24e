package dev.dml.tune;

import dev.dml.options.OptionValues;
import java.util.ArrayList;
import java.util.List;

/**
 * One configuration of a sweep and how its job went: the metric after each epoch, its status,
 * what it cost, and its result. Updated from the job's event thread and the sweep's loop, read
 * by the cell that draws it: every method is synchronized.
 */
public final class Trial {

    private final int number;
    private final OptionValues options;
    private final String settings;
    private final List<double[]> curve = new ArrayList<>();
    private TrialStatus status = TrialStatus.WAITING;
    private boolean stopAsked;
    private int workers = 1;
    private double workerSeconds;
    private double usd;
    private boolean priced = true;
    private String failure;
    private Object result;

    /**
     * A trial not started yet.
     *
     * @param number its number in the sweep, from 1
     * @param options every option its job runs with
     * @param settings its varied options as text, e.g. {@code lr=0.001 hidden=64}
     */
    public Trial(int number, OptionValues options, String settings) {
        this.number = number;
        this.options = options;
        this.settings = settings;
    }

    /** @return its number in the sweep, from 1 */
    public int number() {
        return number;
    }

    /** @return its id, e.g. {@code t03} */
    public String id() {
        return String.format("t%02d", number);
    }

    /** @return every option its job runs with */
    public OptionValues options() {
        return options;
    }

    /** @return its varied options as text */
    public String settings() {
        return settings;
    }

    /** @return its status now */
    public synchronized TrialStatus status() {
        return status;
    }

    synchronized void status(TrialStatus s) {
        status = s;
    }

    /** @return whether ASHA has asked it to stop */
    public synchronized boolean stopAsked() {
        return stopAsked;
    }

    synchronized void askStop() {
        stopAsked = true;
    }

    synchronized void workers(int n) {
        workers = Math.max(1, n);
    }

    synchronized void epoch(int epoch, double value, double seconds) {
        curve.add(new double[] {epoch, value});
        workerSeconds += seconds * workers;
    }

    synchronized void cost(double spent, boolean isPriced) {
        usd = spent;
        priced = isPriced;
    }

    synchronized void end(TrialStatus s, Object value, String failed) {
        status = s;
        result = value;
        failure = failed;
    }

    /** @return the metric after each epoch so far, as {@code {epoch, value}} */
    public synchronized List<double[]> curve() {
        return curve.stream().map(double[]::clone).toList();
    }

    /** @return the epochs it has run */
    public synchronized int epochs() {
        return curve.isEmpty() ? 0 : (int) curve.get(curve.size() - 1)[0];
    }

    /** @return its metric after its last epoch; NaN before the first */
    public synchronized double last() {
        for (int i = curve.size() - 1; i >= 0; i--) {
            if (!Double.isNaN(curve.get(i)[1])) {
                return curve.get(i)[1];
            }
        }
        return Double.NaN;
    }

    /** @return the compute it spent: each epoch's seconds times its workers */
    public synchronized double workerSeconds() {
        return workerSeconds;
    }

    /** @return the dollars it spent, 0 on nodes without a price */
    public synchronized double usd() {
        return usd;
    }

    /** @return whether its nodes had a price */
    public synchronized boolean priced() {
        return priced;
    }

    /** @return why it failed, one line; null unless it failed */
    public synchronized String failure() {
        return failure;
    }

    /** @return its job's result once it ended; null before, or when it failed */
    public synchronized Object result() {
        return result;
    }
}
