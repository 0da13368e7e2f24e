package dev.dml.ray.data;

import com.google.flatbuffers.FlatBufferBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.FBSerializables;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes a shard as an Arrow IPC stream straight into one exactly sized {@code byte[]}: the
 * schema message (serialised by Arrow), one record-batch message whose flatbuffer metadata is
 * built here, the body, and the end-of-stream marker. The body is written once, from the column
 * arrays, with no Arrow vectors and no off-heap memory.
 *
 * <p>Layout of the body (all buffers 8-byte aligned, no nulls, so every validity buffer is empty
 * as the format allows): features child data {@code rows * F} float32, then labels {@code rows}
 * int32 or float32.
 */
final class IpcWriter {

    private static final int CONTINUATION = -1;

    private final byte[] schemaMessage;
    private final boolean hasLabel;

    IpcWriter(Schema schema, boolean hasLabel) {
        this.hasLabel = hasLabel;
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            MessageSerializer.serialize(new WriteChannel(Channels.newChannel(out)), schema);
            this.schemaMessage = out.toByteArray();
        } catch (IOException e) {
            throw new AssertionError("in-memory stream failed", e);
        }
    }

    /** Fills the body regions of one shard. */
    interface Body {
        /** Writes the row-major features at the buffer's position 0. */
        void features(ByteBuffer dst);

        /** Writes the labels at the buffer's position 0. */
        void labels(ByteBuffer dst);
    }

    byte[] write(int rows, int features, Body body) {
        long featureBytes = (long) rows * features * Float.BYTES;
        long labelBytes = hasLabel ? (long) rows * Integer.BYTES : 0;
        long featureSpan = pad8(featureBytes);
        long bodyLength = featureSpan + pad8(labelBytes);
        ByteBuffer meta = batchMetadata(rows, features, featureBytes, featureSpan, labelBytes,
                bodyLength);
        int start = schemaMessage.length;
        int metaLength = (int) (pad8(start + 8L + meta.remaining()) - start - 8);
        long total = schemaMessage.length + 8L + metaLength + bodyLength + 8;
        if (total > Integer.MAX_VALUE - 16) {
            throw new dev.dml.DmlException(
                    "A shard of " + rows + " rows x " + features + " features is over 2 GiB.",
                    "Split the table into more shards (more workers or smaller pieces).");
        }
        byte[] out = new byte[(int) total];
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.put(schemaMessage);
        b.putInt(CONTINUATION).putInt(metaLength);
        int metaStart = b.position();
        b.put(meta);
        b.position(metaStart + metaLength);
        int bodyStart = b.position();
        if (featureBytes > 0) {
            body.features(slice(out, bodyStart, featureBytes));
        }
        if (labelBytes > 0) {
            body.labels(slice(out, bodyStart + featureSpan, labelBytes));
        }
        b.position((int) (bodyStart + bodyLength));
        b.putInt(CONTINUATION).putInt(0);
        return out;
    }

    private ByteBuffer batchMetadata(int rows, int features, long featureBytes, long featureSpan,
            long labelBytes, long bodyLength) {
        ArrowFieldNode list = new ArrowFieldNode(rows, 0);
        ArrowFieldNode items = new ArrowFieldNode((long) rows * features, 0);
        List<ArrowFieldNode> nodes = hasLabel
                ? List.of(list, items, new ArrowFieldNode(rows, 0))
                : List.of(list, items);
        List<ArrowBuffer> buffers = hasLabel
                ? List.of(new ArrowBuffer(0, 0), new ArrowBuffer(0, 0),
                        new ArrowBuffer(0, featureBytes), new ArrowBuffer(featureSpan, 0),
                        new ArrowBuffer(featureSpan, labelBytes))
                : List.of(new ArrowBuffer(0, 0), new ArrowBuffer(0, 0),
                        new ArrowBuffer(0, featureBytes));
        FlatBufferBuilder fb = new FlatBufferBuilder();
        RecordBatch.startNodesVector(fb, nodes.size());
        int nodesOffset = FBSerializables.writeAllStructsToVector(fb, nodes);
        RecordBatch.startBuffersVector(fb, buffers.size());
        int buffersOffset = FBSerializables.writeAllStructsToVector(fb, buffers);
        RecordBatch.startRecordBatch(fb);
        RecordBatch.addLength(fb, rows);
        RecordBatch.addNodes(fb, nodesOffset);
        RecordBatch.addBuffers(fb, buffersOffset);
        int batch = RecordBatch.endRecordBatch(fb);
        return MessageSerializer.serializeMessage(
                fb, MessageHeader.RecordBatch, batch, bodyLength, IpcOption.DEFAULT);
    }

    private static ByteBuffer slice(byte[] out, long start, long length) {
        return ByteBuffer.wrap(out, (int) start, (int) length)
                .slice()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long pad8(long n) {
        return (n + 7) & ~7L;
    }
}
