package dev.dml.ray.collective;

import java.nio.ByteBuffer;

/**
 * A scheme that encodes every element in fewer bytes, so that the ring can sum chunks hop by
 * hop: each rank decodes what its left neighbour sent, adds its own part, and encodes the sum
 * again. Buffers are little-endian.
 */
public sealed interface DenseCodec extends GradientCompression
        permits DenseCodec.TwoBytes, DenseCodec.Int8 {

    /**
     * Returns the size of {@code n} encoded elements.
     *
     * @param n elements
     * @return bytes
     */
    int encodedBytes(int n);

    /**
     * Encodes {@code src[from, to)} into {@code out}, and adds what the encoding lost, {@code
     * src[i] - decoded[i]}, to {@code lost[i]}: the error feedback.
     *
     * @param lost the residual to add to, indexed like {@code src}; null to drop the loss
     */
    void encode(float[] src, int from, int to, ByteBuffer out, float[] lost);

    /**
     * Decodes {@code to - from} elements from {@code in} into {@code dst[from, to)}.
     *
     * @param add add to what {@code dst} holds instead of overwriting it
     */
    void decode(ByteBuffer in, float[] dst, int from, int to, boolean add);

    /** Puts a decoded value into {@code dst[i]}. */
    private static void put(float[] dst, int i, float v, boolean add) {
        dst[i] = add ? dst[i] + v : v;
    }

    /** A codec of 2 bytes an element: one conversion each way, the rest shared. */
    sealed interface TwoBytes extends DenseCodec permits Fp16, Bf16 {
        /** The 16 bits sent for {@code x}. */
        short toBits(float x);

        /** The float that 16 bits hold. */
        float fromBits(short bits);

        @Override
        default int encodedBytes(int n) {
            return 2 * n;
        }

        @Override
        default void encode(float[] src, int from, int to, ByteBuffer out, float[] lost) {
            for (int i = from; i < to; i++) {
                short h = toBits(src[i]);
                out.putShort(h);
                if (lost != null) {
                    lost[i] += src[i] - fromBits(h);
                }
            }
        }

        @Override
        default void decode(ByteBuffer in, float[] dst, int from, int to, boolean add) {
            for (int i = from; i < to; i++) {
                put(dst, i, fromBits(in.getShort()), add);
            }
        }
    }

    /**
     * IEEE half precision: 2 bytes, 11 significant bits, at most 65504. Larger values are
     * clamped, and error feedback keeps the rest; Horovod's fp16 compressor.
     */
    record Fp16() implements TwoBytes {
        /** The largest finite half. */
        static final float MAX = 65504f;

        @Override
        public short toBits(float x) {
            return HalfFloats.toHalf(Math.max(-MAX, Math.min(MAX, x))); // a NaN stays NaN
        }

        @Override
        public float fromBits(short bits) {
            return HalfFloats.fromHalf(bits);
        }

        @Override
        public String toString() {
            return "fp16";
        }
    }

    /**
     * bfloat16: 2 bytes, the float's range with 8 significant bits (the top half of a float,
     * rounded to nearest even).
     */
    record Bf16() implements TwoBytes {
        @Override
        public short toBits(float x) {
            return HalfFloats.toBfloat16(x);
        }

        @Override
        public float fromBits(short bits) {
            return HalfFloats.fromBfloat16(bits);
        }

        @Override
        public String toString() {
            return "bf16";
        }
    }

    /**
     * 8-bit integers: each block of {@value #BLOCK} elements is sent as a float scale
     * ({@code max |x| / 127}) and one signed byte per element, rounded to nearest; 1 byte per
     * element plus 4 per block, so 3.98x smaller than float32.
     */
    record Int8() implements DenseCodec {
        /** Elements that share one scale: small enough for layers of different magnitudes. */
        static final int BLOCK = 1024;

        @Override
        public int encodedBytes(int n) {
            return n + Float.BYTES * ((n + BLOCK - 1) / BLOCK);
        }

        @Override
        public void encode(float[] src, int from, int to, ByteBuffer out, float[] lost) {
            for (int b = from; b < to; b += BLOCK) {
                int e = Math.min(to, b + BLOCK);
                float max = 0;
                for (int i = b; i < e; i++) {
                    max = Math.max(max, Math.abs(src[i])); // a NaN makes the block NaN
                }
                float scale = max / 127f;
                float inverse = scale == 0 ? 0 : 1 / scale;
                out.putFloat(scale);
                for (int i = b; i < e; i++) {
                    int q = Math.max(-127, Math.min(127, Math.round(src[i] * inverse)));
                    out.put((byte) q);
                    if (lost != null) {
                        lost[i] += src[i] - q * scale;
                    }
                }
            }
        }

        @Override
        public void decode(ByteBuffer in, float[] dst, int from, int to, boolean add) {
            for (int b = from; b < to; b += BLOCK) {
                int e = Math.min(to, b + BLOCK);
                float scale = in.getFloat();
                for (int i = b; i < e; i++) {
                    put(dst, i, in.get() * scale, add);
                }
            }
        }

        @Override
        public String toString() {
            return "int8";
        }
    }
}
