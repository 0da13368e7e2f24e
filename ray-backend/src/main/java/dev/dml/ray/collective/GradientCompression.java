package dev.dml.ray.collective;

import dev.dml.DmlException;
import dev.dml.options.Compression;
import java.util.Locale;

/**
 * How a data-parallel all-reduce encodes gradients for the wire: the algorithm, kept apart from
 * the transport as DDP's communication hooks and Horovod's {@code Compressor} are. The {@link
 * Communicator} moves what a scheme encodes; a {@link GradientCompressor} holds one worker's
 * scheme and its error feedback.
 *
 * <ul>
 *   <li>{@link None}: float32, today's ring, bit for bit.
 *   <li>{@link DenseCodec}: every element, smaller ({@code fp16}, {@code bf16}, {@code int8});
 *       chunks are summed hop by hop in the ring.
 *   <li>{@link TopK}: only the largest elements, as (index, value) pairs; a sum of sparse
 *       vectors is not sparse, so each rank sends its pairs to every rank (an all-gather), as
 *       Deep Gradient Compression does.
 *   <li>{@link PowerSgd}: each weight matrix as a low-rank product, from two plain all-reduces
 *       of its factors; it needs the gradients' {@link GradientLayout}.
 * </ul>
 */
public sealed interface GradientCompression
        permits GradientCompression.None, DenseCodec, TopK, PowerSgd {

    /**
     * Returns the scheme that a {@code --compress} value names.
     *
     * @param scheme {@code none}, {@code fp16}, {@code bf16}, {@code int8}, {@code
     *     topk:RATIO[:WARMUP]} with {@code 0 < RATIO <= 1} and {@code WARMUP >= 0} epochs of
     *     sparsity warm-up, or {@code powersgd:RANK} with a whole {@code RANK >= 1}
     * @return the scheme
     * @throws DmlException for any other text
     */
    static GradientCompression of(String scheme) {
        return parse(scheme);
    }

    /**
     * Returns the scheme of a {@code --compress} value, its numbers read here, where it is used.
     *
     * @param compression the option's value
     * @return the scheme
     */
    static GradientCompression of(Compression compression) {
        return parse(compression.text());
    }

    private static GradientCompression parse(String scheme) {
        String s = scheme == null ? "" : scheme.strip().toLowerCase(Locale.ROOT);
        switch (s) {
            case "none":
                return new None();
            case "fp16":
                return new DenseCodec.Fp16();
            case "bf16":
                return new DenseCodec.Bf16();
            case "int8":
                return new DenseCodec.Int8();
            default:
                break;
        }
        String[] topk = s.split(":", -1);
        if (topk[0].equals("topk") && (topk.length == 2 || topk.length == 3)) {
            try {
                double r = Double.parseDouble(topk[1]);
                double w = topk.length == 3 ? Double.parseDouble(topk[2]) : 0;
                if (r > 0 && r <= 1 && w >= 0 && !Double.isInfinite(w)) {
                    return new TopK(r, w);
                }
            } catch (NumberFormatException notANumber) {
                // falls through to the one error line
            }
        }
        if (s.startsWith("powersgd:")) {
            try {
                int rank = Integer.parseInt(s.substring("powersgd:".length()));
                if (rank >= 1) {
                    return new PowerSgd(rank);
                }
            } catch (NumberFormatException notAWholeNumber) {
                // falls through to the one error line
            }
        }
        throw new DmlException("Unknown gradient compression '" + DmlException.literal(scheme)
                + "'.", "Use none, fp16, bf16, int8, topk:RATIO[:WARMUP] with 0 < RATIO <= 1 and"
                        + " WARMUP >= 0 epochs, or"
                        + " powersgd:RANK with a whole RANK >= 1.");
    }

    /**
     * Says whether the scheme loses information, so that its worker keeps error feedback.
     *
     * @return {@code false} only for {@link None}
     */
    default boolean lossy() {
        return true;
    }

    /** No compression: float32 on the wire, through the plain ring. */
    record None() implements GradientCompression {
        @Override
        public boolean lossy() {
            return false;
        }

        @Override
        public String toString() {
            return "none";
        }
    }
}
