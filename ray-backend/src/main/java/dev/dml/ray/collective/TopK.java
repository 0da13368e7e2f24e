package dev.dml.ray.collective;

import java.nio.ByteBuffer;

/**
 * Top-k sparsification: only the {@code ratio} largest elements by magnitude travel, as
 * (index, value) pairs; the rest wait in the error feedback until they grow large enough (Deep
 * Gradient Compression). An encoding is the count {@code k}, the gaps between successive
 * indices as unsigned LEB128 varints (1 to 2 bytes at 1 % density), and the {@code k} values as
 * float32.
 *
 * @param ratio the share of elements sent, {@code 0 < ratio <= 1}
 */
public record TopK(double ratio) implements GradientCompression {

    /**
     * Checks the ratio.
     *
     * @param ratio the share of elements sent
     */
    public TopK {
        if (!(ratio > 0 && ratio <= 1)) {
            throw new IllegalArgumentException("top-k ratio " + ratio + " is not in (0, 1]");
        }
    }

    /** The elements sent out of {@code m}: at least one. */
    int count(int m) {
        return m == 0 ? 0 : (int) Math.min(m, Math.max(1, Math.ceil(ratio * m)));
    }

    /** The most bytes an encoding of {@code m} elements takes. */
    int maxBytes(int m) {
        return Integer.BYTES + count(m) * (5 + Float.BYTES);
    }

    /**
     * Encodes the {@link #count} largest of {@code v[0, m)} into {@code out}, and adds every
     * other element to {@code lost}: the error feedback. Ties at the threshold go to the lower
     * indices.
     */
    void encode(float[] v, int m, ByteBuffer out, float[] lost) {
        int k = count(m);
        float threshold = k == 0 ? 0 : kthLargestMagnitude(v, m, k);
        int above = 0;
        for (int i = 0; i < m; i++) {
            if (Math.abs(v[i]) > threshold) {
                above++;
            }
        }
        int ties = k - above;
        int[] index = new int[k];
        int n = 0;
        for (int i = 0; i < m && n < k; i++) {
            float a = Math.abs(v[i]);
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
        return "topk:" + ratio;
    }
}
