package dev.dml.magics.live;

import java.util.Arrays;

/**
 * A growable (x, y) series that hands out a bounded number of points for drawing: the first and
 * last point, and in between each bucket's lowest and highest point, so spikes stay visible.
 * It holds at most {@value #CAPACITY} points: when full it keeps half as many the same way, so
 * a job of millions of steps costs the kernel no more memory than one of 20,000 (the S1 soak).
 * Not thread-safe; {@link LiveDashboard} guards it.
 */
final class Series {

    /** The most points held; at this size the series is reduced to half. */
    static final int CAPACITY = 20_000;

    private double[] xs = new double[64];
    private double[] ys = new double[64];
    private int size;

    /** Appends a point; NaN values are skipped (nothing to draw). */
    void add(double x, double y) {
        if (Double.isNaN(y)) {
            return;
        }
        if (size == CAPACITY) {
            double[][] kept = points(CAPACITY / 2);
            size = kept[0].length;
            System.arraycopy(kept[0], 0, xs, 0, size);
            System.arraycopy(kept[1], 0, ys, 0, size);
        } else if (size == xs.length) {
            xs = Arrays.copyOf(xs, Math.min(size * 2, CAPACITY));
            ys = Arrays.copyOf(ys, Math.min(size * 2, CAPACITY));
        }
        xs[size] = x;
        ys[size] = y;
        size++;
    }

    int size() {
        return size;
    }

    /** Drops the points after {@code x} (x grows along the series): steps that run again. */
    void dropAfter(double x) {
        while (size > 0 && xs[size - 1] > x) {
            size--;
        }
    }

    /** The last y value, or NaN when empty. */
    double lastY() {
        return size == 0 ? Double.NaN : ys[size - 1];
    }

    /**
     * At most {@code max} points (at least 4) as {@code {xs, ys}} in x order: all of them when
     * they fit, else the first, the last, and the min and max of equal buckets in between.
     */
    double[][] points(int max) {
        if (max < 4) {
            throw new IllegalArgumentException("max must be at least 4, was " + max);
        }
        if (size <= max) {
            return new double[][] {Arrays.copyOf(xs, size), Arrays.copyOf(ys, size)};
        }
        int buckets = (max - 2) / 2;
        double[] ox = new double[max];
        double[] oy = new double[max];
        int n = 0;
        ox[n] = xs[0];
        oy[n++] = ys[0];
        int inner = size - 2;
        for (int b = 0; b < buckets; b++) {
            int from = 1 + (int) ((long) inner * b / buckets);
            int to = 1 + (int) ((long) inner * (b + 1) / buckets);
            int lo = from;
            int hi = from;
            for (int i = from + 1; i < to; i++) {
                if (ys[i] < ys[lo]) {
                    lo = i;
                }
                if (ys[i] > ys[hi]) {
                    hi = i;
                }
            }
            int first = Math.min(lo, hi);
            int second = Math.max(lo, hi);
            ox[n] = xs[first];
            oy[n++] = ys[first];
            if (second != first) {
                ox[n] = xs[second];
                oy[n++] = ys[second];
            }
        }
        ox[n] = xs[size - 1];
        oy[n++] = ys[size - 1];
        return new double[][] {Arrays.copyOf(ox, n), Arrays.copyOf(oy, n)};
    }
}
