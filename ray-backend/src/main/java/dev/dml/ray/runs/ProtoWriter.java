package dev.dml.ray.runs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes one protocol buffer message in the wire format, field by field, so that the few
 * messages TensorBoard reads ({@code Event}, {@code Summary}, the HParams plugin's data) need no
 * protobuf dependency. Callers write fields in field-number order, as protoc does.
 */
final class ProtoWriter {

    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LENGTH = 2;
    private static final int FIXED32 = 5;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    ProtoWriter varint(int field, long value) {
        tag(field, VARINT);
        raw(value);
        return this;
    }

    ProtoWriter bool(int field, boolean value) {
        return varint(field, value ? 1 : 0);
    }

    ProtoWriter float64(int field, double value) {
        tag(field, FIXED64);
        long bits = Double.doubleToRawLongBits(value);
        for (int i = 0; i < 8; i++) {
            out.write((int) (bits >>> (8 * i)));
        }
        return this;
    }

    ProtoWriter float32(int field, float value) {
        tag(field, FIXED32);
        int bits = Float.floatToRawIntBits(value);
        for (int i = 0; i < 4; i++) {
            out.write(bits >>> (8 * i));
        }
        return this;
    }

    ProtoWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    ProtoWriter bytes(int field, byte[] value) {
        tag(field, LENGTH);
        raw(value.length);
        out.writeBytes(value);
        return this;
    }

    ProtoWriter message(int field, ProtoWriter message) {
        return bytes(field, message.toByteArray());
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }

    private void tag(int field, int wireType) {
        raw(((long) field << 3) | wireType);
    }

    private void raw(long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
