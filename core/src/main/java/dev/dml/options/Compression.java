package dev.dml.options;

import java.io.Serializable;

import java.util.Locale;

/**
 * How the gradients workers exchange are compressed ({@code --compress}): a scheme, and the
 * value as written, whose numbers the engine reads ({@code topk:0.01:0.5}, {@code powersgd:4}).
 *
 * @param scheme the scheme
 * @param text the value in lower case, numbers as written
 */
public record Compression(Scheme scheme, String text) implements Serializable {

    /** The schemes. */
    public enum Scheme {
        /** Exact float32 gradients: the default. */
        NONE,
        /** IEEE half floats. */
        FP16,
        /** bfloat16. */
        BF16,
        /** 8-bit integers. */
        INT8,
        /** The largest share of the local velocities (Deep Gradient Compression). */
        TOPK,
        /** Each weight matrix as a low-rank product (PowerSGD). */
        POWERSGD
    }

    /** No compression: the default. */
    public static final Compression NONE = new Compression(Scheme.NONE, "none");

    /**
     * The compression a valid {@code --compress} value names.
     *
     * @param text the value, in lower case
     * @return its compression
     */
    static Compression of(String text) {
        String scheme = text.split(":", -1)[0];
        return new Compression(Scheme.valueOf(scheme.toUpperCase(Locale.ROOT)), text);
    }

    /**
     * Tells whether the gradients go as they are.
     *
     * @return {@code true} for {@code none}
     */
    public boolean isNone() {
        return scheme == Scheme.NONE;
    }

    /** The value as a user types it, e.g. {@code topk:0.01}. */
    @Override
    public String toString() {
        return text;
    }
}
