package dev.dml.ray.ps;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Float arrays as little-endian float32 bytes: bytes cross Ray fast, float arrays do not. */
final class FloatBytes {

    private FloatBytes() {}

    static byte[] of(float[] a) {
        ByteBuffer b = ByteBuffer.allocate(a.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(a);
        return b.array();
    }

    static float[] floats(byte[] b) {
        // Ray hands an empty byte[] over as null
        if (b == null) {
            return new float[0];
        }
        float[] out = new float[b.length / Float.BYTES];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }
}
