package dev.dml.ray.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * The ring's chunking and its wire format. Chunks travel as raw little-endian {@code byte[]}:
 * Ray moves a {@code byte[]} as one buffer, while it encodes a {@code float[]} element by
 * element (MessagePack), about 30 times slower.
 */
final class Chunks {

    private Chunks() {}

    /**
     * The first index of chunk {@code index} when {@code length} elements split in {@code parts}.
     */
    static int start(int length, int parts, int index) {
        return (int) ((long) length * index / parts);
    }

    /** Encodes {@code a[from, to)}. */
    static byte[] encode(float[] a, int from, int to) {
        byte[] out = new byte[(to - from) * Float.BYTES];
        ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(a, from, to - from);
        return out;
    }

    /** Decodes a whole payload. */
    static float[] decode(byte[] payload) {
        float[] out = new float[payload.length / Float.BYTES];
        view(payload).get(out);
        return out;
    }

    /** Adds a payload into {@code acc[from, from + n)}. */
    static void addInto(float[] acc, int from, byte[] payload) {
        FloatBuffer in = view(payload);
        int n = in.remaining();
        for (int i = 0; i < n; i++) {
            acc[from + i] += in.get(i);
        }
    }

    /** Copies a payload into {@code dst[from, from + n)}. */
    static void copyInto(float[] dst, int from, byte[] payload) {
        FloatBuffer in = view(payload);
        in.get(dst, from, in.remaining());
    }

    private static FloatBuffer view(byte[] payload) {
        return ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    }
}
