package dev.dml.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The times of one named trial over the repetitions of a run, with the bytes each moved. */
public final class TrialTimes {

    private final String name;
    private final long bytes;
    private final List<Double> seconds = new ArrayList<>();

    /**
     * Creates an empty series.
     *
     * @param name what was measured
     * @param bytes the bytes one run moves, for the bandwidth
     */
    public TrialTimes(String name, long bytes) {
        this.name = name;
        this.bytes = bytes;
    }

    /**
     * Adds one time.
     *
     * @param s seconds
     */
    public void add(double s) {
        seconds.add(s);
    }

    /**
     * Returns what was measured.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Returns the median time (the mean of the middle two for an even count).
     *
     * @return seconds
     */
    public double medianSeconds() {
        return median(seconds.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * Returns the bandwidth at the median time.
     *
     * @return megabytes (10^6 bytes) per second
     */
    public double medianMbPerSecond() {
        return bytes / 1e6 / medianSeconds();
    }

    /**
     * Returns each run's rate of a job that handles {@code examples} per run.
     *
     * @param examples what one run handles
     * @return examples per second, by run
     */
    public List<Double> rates(long examples) {
        List<Double> out = new ArrayList<>();
        for (double s : seconds()) {
            out.add(examples / s);
        }
        return out;
    }

    /**
     * Returns the median rate of a job that handles {@code examples} per run.
     *
     * @param examples what one run handles
     * @return examples per second at the median time
     */
    public double medianRate(long examples) {
        return examples / medianSeconds();
    }

    /**
     * Returns the times in the order they were taken.
     *
     * @return a copy of the times
     */
    public double[] seconds() {
        return seconds.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * Returns the JSON form: median time, bandwidth at the median, and every sample.
     *
     * @param what a sentence on what one run does
     * @return an ordered map for Gson
     */
    public Map<String, Object> toJson(String what) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", what);
        m.put("bytes", bytes);
        m.put("median_s", round(medianSeconds(), 6));
        m.put("mb_per_s", round(medianMbPerSecond(), 1));
        m.put("seconds", Arrays.stream(seconds()).map(s -> round(s, 6)).toArray());
        return m;
    }

    /**
     * Returns the median of values.
     *
     * @param values the values, at least one
     * @return the median
     */
    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /**
     * Rounds to a number of decimals, for readable JSON.
     *
     * @param x the value
     * @param decimals the decimals to keep
     * @return the rounded value
     */
    public static double round(double x, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(x * f) / f;
    }
}
