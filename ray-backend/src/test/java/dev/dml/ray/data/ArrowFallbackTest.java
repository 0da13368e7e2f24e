package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.ray.NativeMemoryTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.Test;

/**
 * Streams written by Arrow Java's own writer: the shards dml writes by hand must read back with
 * Arrow's reader, and streams outside the fast path (extra columns, nulls) must go through
 * Arrow's reader in {@link ShardDecoder}.
 */
class ArrowFallbackTest extends NativeMemoryTest {

    @Test
    void arrowJavaReadsDmlShard() throws IOException {
        byte[] ipc = ArrowShards.encode(ArrowShardsTest.small(), ArrowShardsTest.smallSelection());
        try (ArrowStreamReader r = new ArrowStreamReader(
                new ByteArrayReadableSeekableByteChannel(ipc), root)) {
            VectorSchemaRoot v = r.getVectorSchemaRoot();
            assertEquals(true, r.loadNextBatch());
            assertEquals(11, v.getRowCount());
            FixedSizeListVector f = (FixedSizeListVector) v.getVector("features");
            Float4Vector item = (Float4Vector) f.getDataVector();
            assertEquals(4.5f, item.get(12));
            assertEquals(0, f.getNullCount());
            assertEquals(0, item.getNullCount());
            assertEquals(2, ((IntVector) v.getVector("label")).get(5));
            assertEquals(false, r.loadNextBatch());
        }
    }

    /** Writes features [[i, -i]] for 4 rows, labels i % 2, and an extra string column. */
    private byte[] writeWithArrow(boolean nullFeatureRow) throws IOException {
        try (FixedSizeListVector f = FixedSizeListVector.empty("features", 2, root);
                IntVector y = new IntVector("label", root);
                VarCharVector s = new VarCharVector("note", root)) {
            f.addOrGetVector(FieldType.notNullable(
                    new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)));
            f.setInitialCapacity(4);
            f.allocateNew();
            Float4Vector item = (Float4Vector) f.getDataVector();
            y.allocateNew(4);
            s.allocateNew(4);
            for (int i = 0; i < 4; i++) {
                if (nullFeatureRow && i == 2) {
                    f.setNull(i);
                } else {
                    f.setNotNull(i);
                }
                item.setSafe(2 * i, i);
                item.setSafe(2 * i + 1, -i);
                y.set(i, i % 2);
                s.setSafe(i, ("n" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            item.setValueCount(8);
            f.setValueCount(4);
            y.setValueCount(4);
            s.setValueCount(4);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (VectorSchemaRoot v = new VectorSchemaRoot(List.of(f, y, s));
                    ArrowStreamWriter w = new ArrowStreamWriter(v, null,
                            Channels.newChannel(out))) {
                w.start();
                w.writeBatch();
                w.end();
            }
            return out.toByteArray();
        }
    }

    @Test
    void extraColumnsAreIgnoredThroughArrowReader() throws IOException {
        byte[] ipc = writeWithArrow(false);
        try (ShardDecoder dec = new ShardDecoder(root, "fallback/0");
                ShardArrays s = dec.openArrays(ipc, manager)) {
            assertArrayEquals(new float[] {0, 0, 1, -1, 2, -2, 3, -3}, s.features().toFloatArray());
            assertArrayEquals(new int[] {0, 1, 0, 1}, s.labels().toIntArray());
            assertEquals(LabelKind.CLASSES, s.labelKind());
            assertEquals(2, s.classCount());
            assertEquals(0, dec.allocator().getAllocatedMemory());
        }
    }

    @Test
    void nullFeatureRowIsReported() throws IOException {
        byte[] ipc = writeWithArrow(true);
        try (ShardDecoder dec = new ShardDecoder(root, "fallback/0")) {
            DmlException e = assertThrows(DmlException.class, () -> dec.openArrays(ipc, manager));
            assertEquals("Column 'features' of the shard has a null at position 2.", e.what());
            assertEquals(0, dec.allocator().getAllocatedMemory());
        }
    }

    @Test
    void garbageBytesAreExplained() {
        try (ShardDecoder dec = new ShardDecoder(root, "fallback/0")) {
            DmlException e = assertThrows(DmlException.class,
                    () -> dec.openArrays(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, manager));
            assertEquals("Pass the bytes made by ArrowShards (an IPC stream, not an IPC file).",
                    e.hint());
        }
    }
}
