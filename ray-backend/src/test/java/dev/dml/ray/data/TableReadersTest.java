package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

class TableReadersTest {

    @TempDir Path dir;
    private BufferAllocator root;

    @BeforeEach
    void setUp() {
        root = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        root.close();
    }

    @Test
    void csvToShards() throws IOException {
        Path csv = dir.resolve("tx.csv");
        Files.writeString(csv, "amount,age,is_fraud\n1.5,30,0\n2.5,40,1\n3.5,50,0\n4.5,60,1\n");
        Table t = TableReaders.readCsv(csv);
        assertEquals("tx", t.name());
        assertEquals(4, t.rowCount());
        ColumnSelection sel = ColumnSelection.builder().addFeatures("amount", "age")
                .setLabel("is_fraud", LabelKind.CLASSES).build();
        List<byte[]> shards = TableReaders.readShards(csv, sel, 2, root);
        try (NDManager m = NDManager.newBaseManager("PyTorch");
                ShardDecoder dec = new ShardDecoder(root, "csv/1");
                ShardArrays s = dec.openArrays(shards.get(1), m)) {
            assertEquals(2, s.rows());
            assertEquals(3.5f, s.features().toFloatArray()[0]);
            assertEquals(60f, s.features().toFloatArray()[3]);
        }
    }

    @Test
    void csvWithEmptyCellFailsValidationWithRow() throws IOException {
        Path csv = dir.resolve("gaps.csv");
        Files.writeString(csv, "amount,is_fraud\n1.5,0\n,1\n3.5,0\n");
        ColumnSelection sel = ColumnSelection.builder().addFeature("amount")
                .setLabel("is_fraud", LabelKind.CLASSES).build();
        DmlException e = assertThrows(DmlException.class,
                () -> TableReaders.readShards(csv, sel, 1, root));
        assertEquals("Feature column 'amount' has a missing value (NaN) at row 1.", e.what());
    }

    @Test
    void javaWrittenArrowFileReadsBack() throws IOException {
        Path file = dir.resolve("plain.arrow");
        try (BufferAllocator a = root.newChildAllocator("write", 0, Long.MAX_VALUE);
                Float8Vector x = new Float8Vector("x", a);
                IntVector y = new IntVector("y", a)) {
            x.allocateNew(3);
            y.allocateNew(3);
            for (int i = 0; i < 3; i++) {
                x.set(i, i * 1.25);
                y.set(i, i);
            }
            x.setValueCount(3);
            y.setValueCount(3);
            try (VectorSchemaRoot r = VectorSchemaRoot.of(x, y);
                    ArrowFileWriter w = new ArrowFileWriter(r, null,
                            Channels.newChannel(Files.newOutputStream(file)))) {
                w.start();
                w.writeBatch();
                w.end();
            }
        }
        Table t = TableReaders.read(file, root);
        assertEquals(3, t.rowCount());
        assertEquals(2.5, t.doubleColumn("x").getDouble(2));
        assertEquals(2, t.intColumn("y").getInt(2));
    }

    @Test
    void missingFileAndUnknownExtensionAreExplained() {
        DmlException e = assertThrows(DmlException.class,
                () -> TableReaders.readCsv(dir.resolve("nope.csv")));
        assertTrue(e.what().endsWith("does not exist or is not a regular file."), e.what());
        DmlException e2 = assertThrows(DmlException.class,
                () -> TableReaders.read(dir.resolve("data.xlsx"), root));
        assertTrue(e2.hint().contains(".csv, .arrow"), e2.hint());
        assertTrue(e2.hint().contains(".parquet"), e2.hint());
        DmlException e3 = assertThrows(DmlException.class,
                () -> TableReaders.read(dir.resolve("data.parquet"), root));
        assertTrue(e3.what().endsWith("does not exist or is not a regular file."), e3.what());
    }
}
