package dev.dml.ray.model;

import dev.dml.DmlException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;

/**
 * A model's training state: magic {@code DMLSTATE}, version 1, the model's description, the
 * flat parameters (little-endian float32), the optimizer kind and its state, and for {@code
 * --precision fp16} the loss scale (a state without it loads with a fresh scale, and a scale is
 * ignored by a model without one).
 */
final class StateCodec {

    private static final long MAGIC = 0x444d4c5354415445L; // "DMLSTATE"
    private static final int VERSION = 1;

    private StateCodec() {}

    static byte[] save(String model, ParameterBuffers params, FlatOptimizer opt,
            LossScale lossScale) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(params.total() * 4 * 3 + 256);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeLong(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(model);
            out.writeInt(params.total());
            byte[] raw = new byte[params.total() * 4];
            FloatBuffer dst = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            params.copyParameters(dst);
            out.write(raw);
            out.writeUTF(opt.spec.kind().name());
            opt.write(out);
            if (lossScale != null) {
                lossScale.write(out);
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError("in-memory stream failed", e);
        }
    }

    static void load(byte[] state, String model, ParameterBuffers params, FlatOptimizer opt,
            LossScale lossScale) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
            if (in.readLong() != MAGIC || in.readInt() != VERSION) {
                throw new DmlException(
                        "The bytes are not a dml training state (wrong magic or version).",
                        "Pass bytes made by ModelStage.saveState().");
            }
            String savedSpec = in.readUTF();
            int n = in.readInt();
            if (!savedSpec.equals(model) || n != params.total()) {
                throw new DmlException(
                        "The state was saved from " + DmlException.literal(savedSpec)
                                + ", but this model is " + DmlException.literal(model) + ".",
                        "Load it into a model built from the same ModelSpec and layers.");
            }
            byte[] raw = in.readNBytes(n * 4);
            if (raw.length != n * 4) {
                throw new IOException("truncated parameters");
            }
            String kind = in.readUTF();
            if (!kind.equals(opt.spec.kind().name())) {
                throw new DmlException(
                        "The state holds " + kind + " optimizer state, but this model uses "
                                + opt.spec.kind().name() + ".",
                        "Load it into a model with the same OptimizerSpec kind.");
            }
            opt.read(in);
            if (lossScale != null && in.available() > 0) {
                lossScale.read(in);
            }
            FloatBuffer src = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
            params.setParameters(src);
        } catch (IOException e) {
            throw new DmlException(
                    "The training state is truncated or corrupt: " + e.getMessage(),
                    "Save it again with ModelStage.saveState().",
                    e);
        }
    }
}
