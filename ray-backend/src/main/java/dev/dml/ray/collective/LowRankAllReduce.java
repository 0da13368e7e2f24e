package dev.dml.ray.collective;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One {@link PowerSgd} all-reduce for one rank: the algorithm, over two of the {@link
 * Communicator}'s plain all-reduces (sums). The first carries every compressed matrix's {@code P
 * = M Q}, then the tensors that travel exactly (vectors, matrices that would not shrink) and the
 * {@link GradientCompressor#exactTail}; the second every {@code Q = M^T P} after {@code P} was
 * orthonormalised. {@code P} and the summed {@code Q} are bit for bit the same on every rank (the
 * ring's all-gather copies each sum), and so is everything computed from them: every rank ends
 * with the same array, and keeps the same {@code Q}. A rank's own {@code Q} is used only inside
 * the summed {@code P}, so ranks whose {@code Q}s differ (one that started afresh after a
 * recovery) still agree.
 *
 * <p>Matrices are row-major, as the flat gradients hold them: {@code M[i][j]} at {@code i *
 * cols + j}, {@code P} ({@code rows x r}) at {@code i * r + k}, {@code Q} ({@code cols x r}) at
 * {@code j * r + k}. Products accumulate in double.
 */
final class LowRankAllReduce {

    /** Seeds every matrix's first {@code Q}, the same on every rank (PyTorch's random_seed). */
    private static final long SEED = 0x9A55_D00DL;

    private final Communicator comm;
    private final GradientCompressor compressor;
    private final GradientLayout layout;
    private final int r;

    LowRankAllReduce(Communicator comm, GradientCompressor compressor) {
        this.comm = comm;
        this.compressor = compressor;
        this.layout = compressor.layout();
        this.r = ((PowerSgd) compressor.scheme()).rank();
    }

    /** Returns the (approximate) sum over ranks of {@code buf}: this rank's array, used up. */
    float[] sum(float[] buf) {
        int m = buf.length - compressor.exactTail();
        if (layout.elements() != m) {
            throw new IllegalArgumentException("the layout holds " + layout.elements()
                    + " elements; the array has " + m + " to compress");
        }
        float[] lost = compressor.feedBack(buf, m);
        float[][] q = factors();
        int tensors = layout.tensors();
        // where each tensor goes in the two messages: its P or its exact values, and its Q
        int[] pAt = new int[tensors + 1];
        int[] qAt = new int[tensors + 1];
        for (int t = 0; t < tensors; t++) {
            boolean low = q[t] != null;
            pAt[t + 1] = pAt[t] + (low ? layout.rows(t) * r : size(t));
            qAt[t + 1] = qAt[t] + (low ? layout.cols(t) * r : 0);
        }
        float[] first = new float[pAt[tensors] + buf.length - m];
        for (int t = 0; t < tensors; t++) {
            if (q[t] != null) {
                multiply(buf, t, q[t], first, pAt[t]);
            } else {
                System.arraycopy(buf, layout.offset(t), first, pAt[t], size(t));
            }
        }
        System.arraycopy(buf, m, first, pAt[tensors], buf.length - m);
        float[] ps = comm.allReduce(first, ReduceOp.SUM);

        float[] out = new float[buf.length];
        float[] qs = new float[qAt[tensors]];
        for (int t = 0; t < tensors; t++) {
            if (q[t] != null) {
                orthonormalize(ps, pAt[t], layout.rows(t));
                transposeMultiply(buf, t, ps, pAt[t], qs, qAt[t]);
                // what this rank's own gradient lost in the projection on P
                product(ps, pAt[t], qs, qAt[t], t, lost, buf);
            } else {
                System.arraycopy(ps, pAt[t], out, layout.offset(t), size(t));
            }
        }
        System.arraycopy(ps, pAt[tensors], out, m, buf.length - m);
        float[] summed = comm.allReduce(qs, ReduceOp.SUM);

        for (int t = 0; t < tensors; t++) {
            if (q[t] != null) {
                product(ps, pAt[t], summed, qAt[t], t, out, null);
                // the next step's warm start, orthonormal: the same span as PyTorch's, but P = M Q
                // no longer squares the spread of M's singular values, which float cannot afford
                System.arraycopy(summed, qAt[t], q[t], 0, q[t].length);
                redrawZeroColumns(q[t], t);
                orthonormalize(q[t], 0, layout.cols(t));
            }
        }
        return out;
    }

    private int size(int t) {
        return layout.offset(t + 1) - layout.offset(t);
    }

    /** The compressor's {@code Q}s, drawn on the first step: null for exact tensors. */
    private float[][] factors() {
        float[][] q = compressor.lowRankFactors();
        if (q != null && q.length == layout.tensors()) {
            return q;
        }
        PowerSgd scheme = (PowerSgd) compressor.scheme();
        q = new float[layout.tensors()][];
        for (int t = 0; t < q.length; t++) {
            int cols = layout.cols(t);
            if (scheme.compresses(layout.rows(t), cols)) {
                q[t] = new float[cols * r];
                SplittableRandom rnd = new SplittableRandom(SEED + t);
                for (int i = 0; i < q[t].length; i++) {
                    q[t][i] = (float) rnd.nextGaussian();
                }
                orthonormalize(q[t], 0, cols);
            }
        }
        compressor.setLowRankFactors(q);
        return q;
    }

    /** {@code p[at, ...) = M_t Q}: {@code rows x r}. */
    private void multiply(float[] buf, int t, float[] q, float[] p, int at) {
        int rows = layout.rows(t);
        int cols = layout.cols(t);
        int from = layout.offset(t);
        double[] acc = new double[r];
        for (int i = 0; i < rows; i++) {
            Arrays.fill(acc, 0);
            int row = from + i * cols;
            for (int j = 0; j < cols; j++) {
                double v = buf[row + j];
                for (int k = 0; k < r; k++) {
                    acc[k] += v * q[j * r + k];
                }
            }
            for (int k = 0; k < r; k++) {
                p[at + i * r + k] = (float) acc[k];
            }
        }
    }

    /** {@code q[qAt, ...) = M_t^T P}: {@code cols x r}. */
    private void transposeMultiply(float[] buf, int t, float[] p, int pAt, float[] q, int qAt) {
        int rows = layout.rows(t);
        int cols = layout.cols(t);
        int from = layout.offset(t);
        double[] acc = new double[cols * r];
        for (int i = 0; i < rows; i++) {
            int row = from + i * cols;
            for (int j = 0; j < cols; j++) {
                double v = buf[row + j];
                for (int k = 0; k < r; k++) {
                    acc[j * r + k] += v * p[pAt + i * r + k];
                }
            }
        }
        for (int i = 0; i < acc.length; i++) {
            q[qAt + i] = (float) acc[i];
        }
    }

    /**
     * Writes {@code P Q^T} over tensor {@code t}'s place in {@code dst}; with {@code minuend},
     * writes {@code minuend - P Q^T} there instead.
     */
    private void product(float[] p, int pAt, float[] q, int qAt, int t, float[] dst,
            float[] minuend) {
        int rows = layout.rows(t);
        int cols = layout.cols(t);
        int from = layout.offset(t);
        for (int i = 0; i < rows; i++) {
            int row = from + i * cols;
            for (int j = 0; j < cols; j++) {
                double v = 0;
                for (int k = 0; k < r; k++) {
                    v += (double) p[pAt + i * r + k] * q[qAt + j * r + k];
                }
                dst[row + j] = minuend == null ? (float) v : (float) (minuend[row + j] - v);
            }
        }
    }

    /**
     * Gram&ndash;Schmidt (modified) on the {@code r} columns of the {@code n x r} matrix at
     * {@code a[at, ...)}; a column that is zero, or becomes zero, stays zero (the sum had a
     * lower rank), where PyTorch's would turn into NaN.
     */
    private void orthonormalize(float[] a, int at, int n) {
        double[] col = new double[n];
        for (int k = 0; k < r; k++) {
            for (int i = 0; i < n; i++) {
                col[i] = a[at + i * r + k];
            }
            for (int j = 0; j < k; j++) {
                double dot = 0;
                for (int i = 0; i < n; i++) {
                    dot += col[i] * a[at + i * r + j];
                }
                for (int i = 0; i < n; i++) {
                    col[i] -= dot * a[at + i * r + j];
                }
            }
            double norm = 0;
            for (int i = 0; i < n; i++) {
                norm += col[i] * col[i];
            }
            norm = Math.sqrt(norm);
            for (int i = 0; i < n; i++) {
                a[at + i * r + k] = norm > 0 ? (float) (col[i] / norm) : 0f;
            }
        }
    }

    /**
     * Redraws a zero column of a kept {@code Q}: from a zero column every later {@code P} and
     * {@code Q} would stay zero there. The draw depends on the tensor and column only, so every
     * rank draws the same.
     */
    private void redrawZeroColumns(float[] q, int t) {
        int cols = q.length / r;
        for (int k = 0; k < r; k++) {
            boolean zero = true;
            for (int j = 0; j < cols && zero; j++) {
                zero = q[j * r + k] == 0f;
            }
            if (zero) {
                SplittableRandom rnd = new SplittableRandom(SEED + 1_000_003L * (t + 1) + k);
                for (int j = 0; j < cols; j++) {
                    q[j * r + k] = (float) rnd.nextGaussian();
                }
            }
        }
    }
}
