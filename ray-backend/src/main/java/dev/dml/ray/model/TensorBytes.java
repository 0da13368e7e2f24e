package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.dml.DmlException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A float32 tensor as compact bytes, the form in which activations and their gradients pass
 * between pipeline stages: the rank, the dimensions, then the values, all little-endian.
 */
final class TensorBytes {

    private TensorBytes() {}

    static byte[] encode(NDArray a) {
        if (a.getDataType() != DataType.FLOAT32) {
            a = a.toType(DataType.FLOAT32, false);
        }
        long[] dims = a.getShape().getShape();
        ByteBuffer values = a.toByteBuffer().order(ByteOrder.nativeOrder());
        ByteBuffer out = ByteBuffer.allocate(4 + 8 * dims.length + values.remaining())
                .order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(dims.length);
        for (long d : dims) {
            out.putLong(d);
        }
        out.asFloatBuffer().put(values.asFloatBuffer());
        return out.array();
    }

    /** Decodes bytes into a new array owned by {@code manager}. */
    static NDArray decode(byte[] bytes, NDManager manager) {
        if (bytes == null || bytes.length < 4) {
            throw new DmlException("A pipeline stage got no tensor bytes.",
                    "Pass the bytes the previous stage returned; this is a bug in dml.");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long[] dims = new long[in.getInt()];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = in.getLong();
        }
        float[] values = new float[in.remaining() / Float.BYTES];
        in.asFloatBuffer().get(values);
        return manager.create(values, new Shape(dims));
    }
}
