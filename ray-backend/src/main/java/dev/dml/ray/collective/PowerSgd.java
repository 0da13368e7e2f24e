package dev.dml.ray.collective;

/**
 * PowerSGD (Vogels, Karimireddy and Jaggi, 2019; PyTorch DDP's {@code powerSGD_hook}): each
 * weight matrix's gradient {@code M} ({@code n x m}, a convolution kernel seen as {@code out x
 * in*kh*kw}, from a {@link GradientLayout}) travels as a rank-{@code rank} product {@code P
 * Q^T}, found by one step of power iteration that is warm-started from the previous step's
 * {@code Q}:
 *
 * <ol>
 *   <li>{@code M = gradient + residual}; {@code P = M Q}; all-reduce (sum) {@code P}.
 *   <li>Orthonormalise {@code P}'s columns (Gram&ndash;Schmidt); {@code Q = M^T P}; all-reduce
 *       {@code Q}. The sum of every rank's gradients is then approximated by {@code P Q^T}.
 *   <li>The residual keeps {@code M - P P^T M}: what this rank's own gradient lost in the
 *       projection (the paper's local error), so the residuals of all ranks add up to the sum
 *       of gradients less what was applied.
 * </ol>
 *
 * Only {@code rank * (n + m)} floats travel for {@code n * m}. Vectors (biases), and matrices
 * that would not shrink ({@code rank * (n + m) >= n * m}), are all-reduced exactly, in the same
 * message as the {@code P}s. Both all-reduces are the {@link Communicator}'s plain ring, so the
 * algorithm stays apart from the transport; {@link LowRankAllReduce} runs it.
 *
 * @param rank the rank of each approximation, at least 1
 */
public record PowerSgd(int rank) implements GradientCompression {

    /**
     * Checks the rank.
     *
     * @param rank the rank of each approximation
     */
    public PowerSgd {
        if (rank < 1) {
            throw new IllegalArgumentException("PowerSGD rank " + rank + " is below 1");
        }
    }

    /**
     * Says whether a {@code rows x cols} matrix travels as a low-rank product: only when that
     * is smaller.
     *
     * @param rows the matrix's rows
     * @param cols its columns
     * @return {@code true} when {@code rank * (rows + cols) < rows * cols}
     */
    public boolean compresses(int rows, int cols) {
        return rows > 1 && cols > 1 && (long) rank * (rows + cols) < (long) rows * cols;
    }

    @Override
    public String toString() {
        return "powersgd:" + rank;
    }
}
