package dev.dml.ray.collective;

import java.nio.ByteBuffer;

/**
 * Top-k sparsification as Deep Gradient Compression (Lin et al., ICLR 2018) runs it: only the
 * {@code ratio} largest elements by magnitude travel, as (index, value) pairs; the rest wait in
 * the error feedback until they grow large enough. An encoding is the count {@code k}, the gaps
 * between successive indices as unsigned LEB128 varints (1 to 2 bytes at 1 % density), and the
 * {@code k} values as float32.
 *
 * <p>With a warm-up of {@code W} epochs the share sent starts at {@value #WARMUP_START} (or
 * {@code ratio} if larger) and falls geometrically to {@code ratio} over the first {@code W}
 * epochs (DGC's exponential sparsity warm-up, smooth instead of one level per epoch). The
 * worker's optimizer momentum runs before the encoding ({@link MomentumCorrection}).
 *
 * @param ratio the share of elements sent, {@code 0 < ratio <= 1}
 * @param warmupEpochs the epochs over which the share falls to {@code ratio}; 0 for none
 */
public record TopK(double ratio, double warmupEpochs) implements GradientCompression {

    /** The share sent at the start of a warm-up: DGC's first level (75 % sparsity). */
    public static final double WARMUP_START = 0.25;

    /**
     * Checks the ratio and the warm-up.
     *
     * @param ratio the share of elements sent
     * @param warmupEpochs the warm-up's length in epochs, 0 or more
     */
    public TopK {
        if (!(ratio > 0 && ratio <= 1)) {
            throw new IllegalArgumentException("top-k ratio " + ratio + " is not in (0, 1]");
        }
        if (!(warmupEpochs >= 0) || Double.isInfinite(warmupEpochs)) {
            throw new IllegalArgumentException("top-k warm-up " + warmupEpochs + " epochs");
        }
    }

    /**
     * Top-k without a warm-up.
     *
     * @param ratio the share of elements sent, {@code 0 < ratio <= 1}
     */
    public TopK(double ratio) {
        this(ratio, 0);
    }

    /**
     * Returns the share of elements sent at a point of the training.
     *
     * @param epochs the training's progress, in epochs (fractional)
     * @return {@code ratio} after the warm-up; during it, between {@code max(ratio,
     *     WARMUP_START)} and {@code ratio}, falling geometrically
     */
    public double ratioAt(double epochs) {
        double start = Math.max(ratio, WARMUP_START);
        if (!(epochs < warmupEpochs) || start == ratio) {
            return ratio;
        }
        return start * Math.pow(ratio / start, Math.max(0, epochs) / warmupEpochs);
    }

    /** The elements sent out of {@code m} at {@code ratio}: at least one. */
    int count(int m) {
        return count(m, ratio);
    }

    /** The elements sent out of {@code m} at a share {@code r}: at least one. */
    static int count(int m, double r) {
        return m == 0 ? 0 : (int) Math.min(m, Math.max(1, Math.ceil(r * m)));
    }

    /** The most bytes an encoding of {@code m} elements takes at {@code ratio}. */
    int maxBytes(int m) {
        return bytesFor(count(m));
    }

    /** The most bytes an encoding of {@code k} pairs takes. */
    static int bytesFor(int k) {
        return Integer.BYTES + k * (5 + Float.BYTES);
    }

    /** Encodes the {@link #count} largest of {@code v[0, m)}; see {@link #encodeTop}. */
    int[] encode(float[] v, int m, ByteBuffer out, float[] lost) {
        return encodeTop(v, m, count(m), out, lost);
    }

    /**
     * Encodes the {@code k} largest of {@code v[0, m)} into {@code out}, and adds every other
     * element to {@code lost}: the error feedback. Ties at the threshold go to the lower
     * indices.
     *
     * @return the indices sent, ascending
     */
    static int[] encodeTop(float[] v, int m, int k, ByteBuffer out, float[] lost) {
        return encodeTop(v, null, m, k, out, lost);
    }

    /**
     * As {@link #encodeTop(float[], int, int, ByteBuffer, float[])}, choosing the elements by
     * {@code |v[i]| * weight[i]} instead of {@code |v[i]|} when {@code weight} is not null.
     */
    static int[] encodeTop(float[] v, float[] weight, int m, int k, ByteBuffer out,
            float[] lost) {
        float[] key = v;
        if (weight != null) {
            key = new float[m];
            for (int i = 0; i < m; i++) {
                key[i] = v[i] * weight[i];
            }
        }
        float threshold = k == 0 ? 0 : kthLargestMagnitude(key, m, k);
        int above = 0;
        for (int i = 0; i < m; i++) {
            if (Math.abs(key[i]) > threshold) {
                above++;
            }
        }
        int ties = k - above;
        int[] index = new int[k];
        int n = 0;
        for (int i = 0; i < m && n < k; i++) {
            float a = Math.abs(key[i]);
            if (a > threshold || (a == threshold && ties-- > 0)) {
                index[n++] = i;
            }
        }
        out.putInt(n);
        int previous = -1;
        for (int j = 0; j < n; j++) {
            putVarint(out, index[j] - previous - 1);
            previous = index[j];
        }
        int next = 0;
        for (int i = 0; i < m; i++) {
            if (next < n && index[next] == i) {
                out.putFloat(v[i]);
                next++;
            } else if (lost != null) {
                lost[i] += v[i];
            }
        }
        return n == k ? index : java.util.Arrays.copyOf(index, n);
    }

    /** Adds an encoding's pairs into {@code dst}. */
    static void decodeAdd(ByteBuffer in, float[] dst) {
        int n = in.getInt();
        int[] index = new int[n];
        int previous = -1;
        for (int j = 0; j < n; j++) {
            previous += getVarint(in) + 1;
            index[j] = previous;
        }
        for (int j = 0; j < n; j++) {
            dst[index[j]] += in.getFloat();
        }
    }

    /** The k-th largest of {@code |v[0, m)|}, by quickselect on a copy. */
    static float kthLargestMagnitude(float[] v, int m, int k) {
        float[] a = new float[m];
        for (int i = 0; i < m; i++) {
            float x = Math.abs(v[i]);
            a[i] = Float.isNaN(x) ? Float.POSITIVE_INFINITY : x; // a NaN is sent, not hidden
        }
        int target = m - k; // the k-th largest is the (m - k)-th smallest
        int lo = 0;
        int hi = m - 1;
        long state = 0x9E3779B97F4A7C15L;
        while (lo < hi) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            float pivot = a[lo + (int) ((state >>> 33) % (hi - lo + 1))];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (a[i] < pivot) {
                    i++;
                }
                while (a[j] > pivot) {
                    j--;
                }
                if (i <= j) {
                    float t = a[i];
                    a[i++] = a[j];
                    a[j--] = t;
                }
            }
            if (target <= j) {
                hi = j;
            } else if (target >= i) {
                lo = i;
            } else {
                break;
            }
        }
        return a[target];
    }

    private static void putVarint(ByteBuffer out, int value) {
        while ((value & ~0x7f) != 0) {
            out.put((byte) ((value & 0x7f) | 0x80));
            value >>>= 7;
        }
        out.put((byte) value);
    }

    private static int getVarint(ByteBuffer in) {
        int value = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = in.get();
            value |= (b & 0x7f) << shift;
            if (b >= 0) {
                return value;
            }
        }
    }

    @Override
    public String toString() {
        return "topk:" + ratio + (warmupEpochs == 0 ? "" : ":" + warmupEpochs);
    }
}
