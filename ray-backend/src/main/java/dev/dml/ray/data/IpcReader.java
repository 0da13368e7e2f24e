package dev.dml.ray.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flatbuf.Buffer;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/**
 * The fast path of {@link ShardDecoder}: reads the IPC messages' metadata with Arrow and copies
 * each record batch's feature and label buffers straight from the shard bytes into memory that
 * PyTorch allocated, one bulk copy per buffer, with no Arrow buffers in between.
 *
 * <p>It handles streams whose schema is exactly {@code features} (+ {@code label}), uncompressed,
 * without nulls. For anything else it returns {@code null} and the caller uses Arrow's reader,
 * which also gives the precise error.
 */
final class IpcReader {

    private IpcReader() {}

    static ShardArrays tryRead(byte[] ipc, NDManager manager) throws IOException {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            return null;
        }
        ByteArrayReadableSeekableByteChannel ch = new ByteArrayReadableSeekableByteChannel(ipc);
        ReadChannel in = new ReadChannel(ch);
        MessageMetadataResult first = MessageSerializer.readMessage(in);
        if (first == null || first.headerType() != MessageHeader.Schema) {
            return null;
        }
        Schema schema = MessageSerializer.deserializeSchema(first);
        List<Field> fields = schema.getFields();
        if (fields.isEmpty() || fields.size() > 2
                || !ShardFormat.FEATURES.equals(fields.get(0).getName())) {
            return null;
        }
        Field feat = fields.get(0);
        Field label = fields.size() == 2 ? fields.get(1) : null;
        DataType featType = featureType(feat);
        DataType labelType = label == null ? null : labelType(label);
        if (featType == null || (label != null && (labelType == null
                || !ShardFormat.LABEL.equals(label.getName())))) {
            return null;
        }
        int width = ((ArrowType.FixedSizeList) feat.getType()).getListSize();
        List<NDArray> xs = new ArrayList<>();
        List<NDArray> ys = new ArrayList<>();
        boolean ok = false;
        try {
            MessageMetadataResult msg;
            while ((msg = MessageSerializer.readMessage(in)) != null) {
                if (msg.headerType() != MessageHeader.RecordBatch) {
                    return null;
                }
                RecordBatch rb = (RecordBatch) msg.getMessage().header(new RecordBatch());
                int nodes = label == null ? 2 : 3;
                if (rb.compression() != null || rb.nodesLength() != nodes
                        || rb.buffersLength() != (label == null ? 3 : 5)) {
                    return null;
                }
                for (int i = 0; i < nodes; i++) {
                    if (rb.nodes(i).nullCount() != 0) {
                        return null;
                    }
                }
                long bodyStart = ch.position();
                long bodyLength = msg.getMessageBodyLength();
                int rows = Math.toIntExact(rb.length());
                xs.add(copy(ipc, bodyStart, bodyLength, rb.buffers(2), new Shape(rows, width),
                        featType, DataType.FLOAT32, manager));
                if (label != null) {
                    DataType want = labelType.isInteger() ? DataType.INT32 : DataType.FLOAT32;
                    ys.add(copy(ipc, bodyStart, bodyLength, rb.buffers(4), new Shape(rows),
                            labelType, want, manager));
                }
                ch.position(bodyStart + bodyLength);
            }
            if (xs.isEmpty()) {
                xs.add(manager.create(new Shape(0, width), DataType.FLOAT32));
                if (label != null) {
                    ys.add(manager.create(new Shape(0),
                            labelType.isInteger() ? DataType.INT32 : DataType.FLOAT32));
                }
            }
            ShardArrays out = ShardDecoder.assemble(xs, ys, label != null, names(feat),
                    schema.getCustomMetadata(), label);
            ok = true;
            return out;
        } finally {
            if (!ok) {
                xs.forEach(NDArray::close);
                ys.forEach(NDArray::close);
            }
        }
    }

    private static NDArray copy(byte[] ipc, long bodyStart, long bodyLength, Buffer buf,
            Shape shape, DataType have, DataType want, NDManager manager) throws IOException {
        long bytes = shape.size() * have.getNumOfBytes();
        if (buf.length() < bytes || buf.offset() < 0 || buf.offset() + bytes > bodyLength
                || bodyStart + bodyLength > ipc.length) {
            throw new IOException("a buffer lies outside the record batch body");
        }
        NDArray a = manager.create(shape, have);
        if (bytes > 0) {
            ByteBuffer dst = a.toByteBuffer(true);
            dst.put(ByteBuffer.wrap(ipc, (int) (bodyStart + buf.offset()), (int) bytes));
        }
        if (have == want) {
            return a;
        }
        try (a) {
            return a.toType(want, true);
        }
    }

    private static DataType featureType(Field f) {
        if (!(f.getType() instanceof ArrowType.FixedSizeList) || f.getChildren().size() != 1) {
            return null;
        }
        ArrowType t = f.getChildren().get(0).getType();
        if (t instanceof ArrowType.FloatingPoint) {
            FloatingPointPrecision p = ((ArrowType.FloatingPoint) t).getPrecision();
            return p == FloatingPointPrecision.SINGLE ? DataType.FLOAT32
                    : p == FloatingPointPrecision.DOUBLE ? DataType.FLOAT64 : null;
        }
        return null;
    }

    private static DataType labelType(Field f) {
        ArrowType t = f.getType();
        if (t instanceof ArrowType.Int && ((ArrowType.Int) t).getIsSigned()) {
            int bits = ((ArrowType.Int) t).getBitWidth();
            return bits == 32 ? DataType.INT32 : bits == 64 ? DataType.INT64 : null;
        }
        if (t instanceof ArrowType.FloatingPoint) {
            FloatingPointPrecision p = ((ArrowType.FloatingPoint) t).getPrecision();
            return p == FloatingPointPrecision.SINGLE ? DataType.FLOAT32
                    : p == FloatingPointPrecision.DOUBLE ? DataType.FLOAT64 : null;
        }
        return null;
    }

    private static List<String> names(Field feat) {
        Map<String, String> meta = feat.getMetadata();
        String names = meta == null ? null : meta.get(ShardFormat.FEATURE_NAMES);
        return names == null || names.isEmpty() ? List.of() : Arrays.asList(names.split("\n"));
    }
}
