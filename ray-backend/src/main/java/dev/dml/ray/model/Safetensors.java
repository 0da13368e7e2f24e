package dev.dml.ray.model;

import com.google.gson.Gson;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes float32 tensors in the safetensors format that PyTorch, Hugging Face and others read:
 * an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and
 * byte range, then the raw little-endian data, tensor after tensor.
 */
final class Safetensors {

    private Safetensors() {}

    /**
     * One float32 tensor.
     *
     * @param shape its dimensions
     * @param data its values, row-major, as many as the shape holds
     */
    record Tensor(long[] shape, float[] data) {
        Tensor {
            long n = 1;
            for (long d : shape) {
                n *= d;
            }
            if (n != data.length) {
                throw new IllegalArgumentException(
                        "shape holds " + n + " values, data has " + data.length);
            }
        }
    }

    /**
     * Writes tensors in the given order.
     *
     * @param file the file, replaced if it exists
     * @param tensors the tensors by name
     * @param metadata string pairs stored under {@code __metadata__}
     */
    static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata)
            throws IOException {
        Map<String, Object> header = new LinkedHashMap<>();
        if (!metadata.isEmpty()) {
            header.put("__metadata__", metadata);
        }
        long offset = 0;
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            long end = offset + 4L * e.getValue().data().length;
            header.put(e.getKey(), Map.of("dtype", "F32", "shape", e.getValue().shape(),
                    "data_offsets", List.of(offset, end)));
            offset = end;
        }
        byte[] json = new Gson().toJson(header).getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8; // the data starts 8-byte aligned
        try (OutputStream out = Files.newOutputStream(file)) {
            out.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(padded).array());
            out.write(json);
            out.write(" ".repeat(padded - json.length).getBytes(StandardCharsets.US_ASCII));
            for (Tensor t : tensors.values()) {
                ByteBuffer bytes = ByteBuffer.allocate(4 * t.data().length)
                        .order(ByteOrder.LITTLE_ENDIAN);
                bytes.asFloatBuffer().put(t.data());
                out.write(bytes.array());
            }
        }
    }
}
