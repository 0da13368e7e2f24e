package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.DataType;
import dev.dml.DmlException;
import dev.dml.ray.NativeMemoryTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;

/** Java writes shards that pyarrow reads, and reads what pyarrow writes. */
class CrossLanguageTest extends NativeMemoryTest {

    @TempDir Path dir;
    @BeforeAll
    static void checkPython() {
        Python.requirePyarrow();
    }

    @Test
    void pyarrowReadsJavaShard() throws Exception {
        Path shard = dir.resolve("shard.arrows");
        Files.write(shard, ArrowShards.encode(ArrowShardsTest.small(),
                ArrowShardsTest.smallSelection()));
        Map<String, String> out = Python.runScript("read_shard.py", shard.toString());
        assertEquals("11", out.get("rows"));
        assertEquals("3", out.get("width"));
        assertEquals("float", out.get("feature_type"));
        assertEquals("a,b,c", out.get("names"));
        assertEquals("int32", out.get("label_type"));
        assertEquals("3", out.get("classes"));
        assertEquals("CLASSES", out.get("label_kind"));
        assertEquals("4.5,40.0,-4.0", out.get("row4"));
        assertEquals("0,1,2,0,1,2,0,1,2,0,1", out.get("labels"));
        // sum over i of (i + 0.5) + 10 i - i for i < 11 = 10 * 55 + 5.5
        assertEquals(555.5, Double.parseDouble(out.get("sum")), 1e-9);
    }

    @Test
    void javaReadsPyarrowStreamAndFile() {
        Path stream = dir.resolve("from_python.arrows");
        Path file = dir.resolve("table.arrow");
        Python.runScript("write_arrow.py", stream.toString(), file.toString());

        byte[] bytes = readAll(stream);
        try (ShardArrays fast = IpcReader.tryRead(bytes, manager)) {
            assertNotNull(fast, "pyarrow's stream must take the fast path");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        try (ShardDecoder dec = new ShardDecoder(root, "py/0");
                ShardArrays s = dec.openArrays(bytes, manager)) {
            assertEquals(10, s.rows());
            assertEquals(List.of("i", "twice", "quarter"), s.featureNames());
            assertEquals(DataType.INT32, s.labels().getDataType());
            assertEquals(LabelKind.CLASSES, s.labelKind());
            assertEquals(5, s.classCount());
            float[] x = s.features().toFloatArray();
            for (int i = 0; i < 10; i++) {
                assertArrayEquals(new float[] {i, 2f * i, i / 4f},
                        new float[] {x[3 * i], x[3 * i + 1], x[3 * i + 2]});
            }
            assertArrayEquals(new int[] {0, 1, 2, 3, 4, 0, 1, 2, 3, 4}, s.labels().toIntArray());
        }

        Table t = TableReaders.readArrow(file, root);
        assertEquals(6, t.rowCount());
        assertEquals(List.of("x", "n", "flag", "name"), t.columnNames());
        assertEquals(ColumnType.DOUBLE, t.column("x").type());
        assertEquals(ColumnType.LONG, t.column("n").type());
        assertEquals(ColumnType.BOOLEAN, t.column("flag").type());
        assertEquals(ColumnType.STRING, t.column("name").type());
        assertEquals(2.5, t.doubleColumn("x").getDouble(5));
        assertTrue(t.column("x").isMissing(3));
        assertEquals("r4", t.stringColumn("name").get(4));
        ColumnSelection sel = ColumnSelection.builder().addFeatures("x", "flag")
                .setLabel("n", LabelKind.CLASSES).build();
        DmlException e = assertThrows(DmlException.class,
                () -> ArrowShards.encode(t, sel));
        assertEquals("Feature column 'x' has a missing value (NaN) at row 3.", e.what());

        Table shardAsTable = TableReaders.readArrow(stream, root);
        assertEquals(List.of("i", "twice", "quarter", "label"), shardAsTable.columnNames());
        assertEquals(10, shardAsTable.rowCount());
        assertEquals(2.25, shardAsTable.doubleColumn("quarter").getDouble(9));
    }

    private static byte[] readAll(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
