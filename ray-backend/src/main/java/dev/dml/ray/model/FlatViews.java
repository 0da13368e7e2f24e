package dev.dml.ray.model;

import java.nio.FloatBuffer;

/**
 * Float views over the memory of a run of consecutive parameters' CPU tensors, their values or
 * their gradients, read and written by flat index: how ZeRO-2's collectives take a gradient
 * bucket and give back its parameters piece by piece, with no copy as long as the bucket. A
 * borrowed view, taken on the thread that trains, for the current step: it may be read on
 * another thread while the backward goes on with other layers, and is invalid once the tensors
 * are replaced.
 */
public final class FlatViews {

    private final FloatBuffer[] views;
    /** Each view's first flat index, and one past the last view's end. */
    private final int[] offsets;

    FlatViews(FloatBuffer[] views, int[] offsets) {
        this.views = views;
        this.offsets = offsets;
    }

    /**
     * Copies flat elements {@code [from, to)} into {@code dst} from index {@code at} on.
     *
     * @param from the first flat index, inside the views
     * @param to one past the last
     * @param dst the array
     * @param at where in it the first element goes
     */
    public void read(int from, int to, float[] dst, int at) {
        move(from, to, dst, at, true);
    }

    /**
     * Overwrites flat elements {@code [from, to)}, in place, from {@code src} at {@code at}.
     *
     * @param from the first flat index, inside the views
     * @param to one past the last
     * @param src the array
     * @param at where in it the first element is
     */
    public void write(int from, int to, float[] src, int at) {
        move(from, to, src, at, false);
    }

    private void move(int from, int to, float[] a, int at, boolean read) {
        for (int i = 0; i < views.length; i++) {
            int lo = Math.max(from, offsets[i]);
            int hi = Math.min(to, offsets[i + 1]);
            if (lo >= hi) {
                continue;
            }
            if (read) {
                views[i].get(lo - offsets[i], a, at + lo - from, hi - lo);
            } else {
                views[i].put(lo - offsets[i], a, at + lo - from, hi - lo);
            }
        }
    }
}
