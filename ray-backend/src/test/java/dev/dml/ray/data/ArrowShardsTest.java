package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.DataType;
import dev.dml.DmlException;
import dev.dml.ray.NativeMemoryTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class ArrowShardsTest extends NativeMemoryTest {

    /** 11 rows; a = i, b = 10 i (float), c = -i (int); label = i % 3; key = "k" + i % 4. */
    static Table small() {
        int n = 11;
        double[] a = new double[n];
        float[] b = new float[n];
        int[] c = new int[n];
        int[] y = new int[n];
        String[] k = new String[n];
        for (int i = 0; i < n; i++) {
            a[i] = i + 0.5;
            b[i] = 10f * i;
            c[i] = -i;
            y[i] = i % 3;
            k[i] = "k" + (i % 4);
        }
        return Table.create("small", DoubleColumn.create("a", a), FloatColumn.create("b", b),
                IntColumn.create("c", c), IntColumn.create("y", y), StringColumn.create("key", k));
    }

    static ColumnSelection smallSelection() {
        return ColumnSelection.builder().addFeatures("a", "b", "c")
                .setLabel("y", LabelKind.CLASSES).build();
    }

    @Test
    void encodeDecodeRoundTrip() throws java.io.IOException {
        byte[] ipc = ArrowShards.encode(small(), smallSelection());
        try (ShardArrays fast = IpcReader.tryRead(ipc, manager)) {
            assertNotNull(fast, "a dml shard must take the fast path");
        }
        try (ShardDecoder dec = new ShardDecoder(root, "job-1/rank-0");
                ShardArrays s = dec.openArrays(ipc, manager)) {
            assertEquals(11, s.rows());
            assertEquals(3, s.featureCount());
            assertEquals(List.of("a", "b", "c"), s.featureNames());
            assertEquals(LabelKind.CLASSES, s.labelKind());
            assertEquals(3, s.classCount());
            assertEquals(DataType.FLOAT32, s.features().getDataType());
            assertEquals(DataType.INT32, s.labels().getDataType());
            float[] x = s.features().toFloatArray();
            int[] y = s.labels().toIntArray();
            for (int i = 0; i < 11; i++) {
                assertEquals(i + 0.5f, x[i * 3]);
                assertEquals(10f * i, x[i * 3 + 1]);
                assertEquals(-i, x[i * 3 + 2]);
                assertEquals(i % 3, y[i]);
            }
            assertEquals(0, dec.allocator().getAllocatedMemory());
            assertEquals("job-1/rank-0", dec.allocator().getName());
        }
    }

    @Test
    void regressionLabelIsFloat() {
        ColumnSelection sel = ColumnSelection.builder().addFeatures("a", "c")
                .setLabel("b", LabelKind.REGRESSION).build();
        byte[] ipc = ArrowShards.encode(small(), sel);
        try (ShardDecoder dec = new ShardDecoder(root, "j/0");
                ShardArrays s = dec.openArrays(ipc, manager)) {
            assertEquals(DataType.FLOAT32, s.labels().getDataType());
            assertEquals(LabelKind.REGRESSION, s.labelKind());
            assertEquals(0, s.classCount());
            assertEquals(100f, s.labels().toFloatArray()[10]);
        }
    }

    @Test
    void splitByRowsIsContiguousAndBalanced() {
        List<byte[]> shards = ArrowShards.splitByRows(small(), smallSelection(), 4);
        assertEquals(4, shards.size());
        List<Float> firstColumn = new ArrayList<>();
        int[] sizes = new int[4];
        try (ShardDecoder dec = new ShardDecoder(root, "j/0")) {
            for (int i = 0; i < 4; i++) {
                try (ShardArrays s = dec.openArrays(shards.get(i), manager)) {
                    sizes[i] = s.rows();
                    float[] x = s.features().toFloatArray();
                    for (int r = 0; r < s.rows(); r++) {
                        firstColumn.add(x[r * 3]);
                    }
                }
            }
        }
        assertArrayEquals(new int[] {2, 3, 3, 3}, sizes);
        for (int i = 0; i < 11; i++) {
            assertEquals(i + 0.5f, firstColumn.get(i));
        }
        assertArrayEquals(new int[] {0, 3, 6}, ArrowShards.rowBounds(6, 2));
        DmlException e = assertThrows(DmlException.class, () -> ArrowShards.rowBounds(3, 4));
        assertEquals("Cannot split 3 rows into 4 shards.", e.what());
    }

    @Test
    void splitByKeyKeepsKeysTogether() {
        Table t = small();
        HashRing ring = new HashRing(3);
        List<byte[]> shards = ArrowShards.splitByKey(t, smallSelection(), "key", ring);
        Map<Integer, Integer> shardOfRow = new HashMap<>();
        int total = 0;
        try (ShardDecoder dec = new ShardDecoder(root, "j/0")) {
            for (int w = 0; w < 3; w++) {
                try (ShardArrays s = dec.openArrays(shards.get(w), manager)) {
                    float[] x = s.features().toFloatArray();
                    total += s.rows();
                    for (int r = 0; r < s.rows(); r++) {
                        shardOfRow.put((int) x[r * 3], w);
                    }
                }
            }
        }
        assertEquals(11, total);
        for (int i = 0; i < 11; i++) {
            int expected = ring.workerFor("k" + (i % 4));
            assertEquals(expected, shardOfRow.get(i), "row " + i);
        }
    }

    @Test
    void splitByKeyRejectsUnknownKeyColumn() {
        DmlException e = assertThrows(DmlException.class, () -> ArrowShards.splitByKey(
                small(), smallSelection(), "kye", new HashRing(2)));
        assertEquals("Key column 'kye' is not in the table.", e.what());
        assertTrue(e.hint().startsWith("Did you mean 'key'?"), e.hint());
    }

    @Test
    void validationHappensBeforeEncoding() {
        Table t = small();
        t.doubleColumn("a").set(4, Double.NaN);
        DmlException e = assertThrows(DmlException.class,
                () -> ArrowShards.splitByRows(t, smallSelection(), 2));
        assertEquals("Feature column 'a' has a missing value (NaN) at row 4.", e.what());
        assertEquals(0, root.getAllocatedMemory());
    }

    @Test
    void tableArraysMatchDecodedShard() {
        try (ShardArrays direct = TableArrays.openArrays(small(), smallSelection(), manager);
                ShardDecoder dec = new ShardDecoder(root, "j/0");
                ShardArrays viaArrow = dec.openArrays(
                        ArrowShards.encode(small(), smallSelection()), manager)) {
            assertArrayEquals(viaArrow.features().toFloatArray(), direct.features().toFloatArray());
            assertArrayEquals(viaArrow.labels().toIntArray(), direct.labels().toIntArray());
        }
    }

    @Test
    void largeShardDecodesExactly() {
        Table t = SyntheticFraud.generate(5000, 3);
        ColumnSelection sel = SyntheticFraud.selection();
        try (ShardArrays direct = TableArrays.openArrays(t, sel, manager);
                ShardDecoder dec = new ShardDecoder(root, "j/0");
                ShardArrays viaArrow = dec.openArrays(ArrowShards.encode(t, sel), manager)) {
            assertArrayEquals(direct.features().toFloatArray(), viaArrow.features().toFloatArray());
            assertArrayEquals(direct.labels().toIntArray(), viaArrow.labels().toIntArray());
            float[] x = viaArrow.features().toFloatArray();
            assertEquals((float) t.doubleColumn("v7").getDouble(4321), x[4321 * 31 + 6]);
            assertEquals((float) t.doubleColumn("amount").getDouble(17), x[17 * 31 + 30]);
        }
    }

    @Test
    void manyBandsEncodeExactly() {
        Table t = SyntheticFraud.generate(80_000, 4);
        ColumnSelection sel = SyntheticFraud.selection();
        try (ShardDecoder dec = new ShardDecoder(root, "j/0");
                ShardArrays a = dec.openArrays(ArrowShards.encode(t, sel), manager)) {
            float[] x = a.features().toFloatArray();
            for (int r : new int[] {0, 39_999, 40_000, 79_999}) {
                for (int c = 0; c < sel.featureCount(); c++) {
                    double v = t.doubleColumn(sel.features().get(c)).getDouble(r);
                    assertEquals((float) v, x[r * sel.featureCount() + c]);
                }
            }
        }
    }

    @Test
    void encoderReportsTheValidatorsFirstBadValue() {
        Table t = SyntheticFraud.generate(80_000, 4);
        ColumnSelection sel = SyntheticFraud.selection();
        t.doubleColumn(sel.features().get(0)).set(70_000, Double.POSITIVE_INFINITY);
        t.doubleColumn(sel.features().get(5)).set(10, Double.NaN);
        DmlException e = assertThrows(DmlException.class, () -> ArrowShards.encode(t, sel));
        assertEquals("Feature column '" + sel.features().get(0)
                + "' has an infinite value at row 70000.", e.what());
        DmlException v = assertThrows(DmlException.class, () -> TableValidator.validate(t, sel));
        assertEquals(v.what(), e.what());
    }

    @Test
    void wideMixedTableEncodesExactlyByRowsAndByKey() {
        int rows = 900;
        int f = 70; // two full tiles of columns and a part tile
        Table t = Table.create("wide");
        java.util.Random rnd = new java.util.Random(9);
        List<String> names = new ArrayList<>();
        for (int c = 0; c < f; c++) {
            String name = "c" + c;
            names.add(name);
            if (c % 3 == 0) {
                double[] v = rnd.doubles(rows).toArray();
                t.addColumns(DoubleColumn.create(name, v));
            } else if (c % 3 == 1) {
                float[] v = new float[rows];
                for (int r = 0; r < rows; r++) {
                    v[r] = rnd.nextFloat();
                }
                t.addColumns(FloatColumn.create(name, v));
            } else {
                t.addColumns(IntColumn.create(name,
                        rnd.ints(rows, -5, 5).toArray()));
            }
        }
        t.addColumns(IntColumn.create("y", rnd.ints(rows, 0, 3).toArray()),
                StringColumn.create("key",
                        rnd.ints(rows, 0, 50).mapToObj(i -> "k" + i)
                                .toArray(String[]::new)));
        ColumnSelection sel = ColumnSelection.builder().addFeatures(names.toArray(String[]::new))
                .setLabel("y", LabelKind.CLASSES).build();
        HashRing ring = new HashRing(3);
        int[] owner = ArrowShards.ownersByKey(t, "key", ring);
        List<byte[]> byKey = ArrowShards.splitByKey(t, sel, "key", ring);
        try (ShardDecoder dec = new ShardDecoder(root, "j/0");
                ShardArrays all = dec.openArrays(ArrowShards.encode(t, sel), manager)) {
            float[] x = all.features().toFloatArray();
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < f; c++) {
                    assertEquals((float) Columns.value(t.column(c), r), x[r * f + c]);
                }
            }
            for (int w = 0; w < 3; w++) {
                try (ShardArrays s = dec.openArrays(byKey.get(w), manager)) {
                    float[] xs = s.features().toFloatArray();
                    int k = 0;
                    for (int r = 0; r < rows; r++) {
                        if (owner[r] == w) {
                            for (int c = 0; c < f; c++) {
                                assertEquals(x[r * f + c], xs[k * f + c]);
                            }
                            k++;
                        }
                    }
                    assertEquals(k, s.rows());
                }
            }
        }
    }
}
