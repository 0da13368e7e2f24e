package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * The file-format suite (issue 26): files that pandas and pyarrow write with their defaults, in
 * the test itself ({@code write_pandas.py}), each read with the values pandas reads back, on the
 * kernel's path ({@link TableReaders#read}) and the workers' ({@link DataFiles#read}), or refused
 * in one line that names the column or file and the fix.
 */
class PandasFilesTest {

    private static final List<String> FRAME = List.of("x", "k", "name", "cat", "y");

    @TempDir
    static Path dir;

    static Map<String, String> written;

    private final RootAllocator allocator = new RootAllocator();

    @BeforeAll
    static void write() {
        Python.requirePandas();
        written = Python.runScript("write_pandas.py", dir.toString());
        assertTrue(written.containsKey("order"), "write_pandas.py printed " + written);
    }

    @AfterEach
    void noLeak() {
        allocator.close(); // throws when a read left Arrow buffers behind
    }

    private Table kernelRead(String file) {
        return TableReaders.read(dir.resolve(file), allocator);
    }

    private static Table workerRead(String file) {
        return DataFiles.open(dir.resolve(file).toString()).read(0, null);
    }

    private static double[] doubles(Table t, String column) {
        Column<?> c = t.column(column);
        double[] out = new double[c.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.isMissing(i) ? Double.NaN : Columns.value(c, i);
        }
        return out;
    }

    /** Checks a 12-row frame of write_pandas.py, in the row order {@code xs} gives. */
    private static void assertFrame(Table t, double[] xs, String what) {
        assertEquals(FRAME, t.columnNames(), what);
        assertArrayEquals(xs, doubles(t, "x"), what);
        for (int r = 0; r < xs.length; r++) {
            int i = (int) (xs[r] * 2);
            assertEquals(i * 10, ((Number) t.column("k").get(r)).intValue(), what + " k " + r);
            assertEquals("r" + (i % 3), t.column("name").getString(r), what + " name " + r);
            assertEquals(i % 2 == 0 ? "u" : "v", t.column("cat").getString(r), what + " cat");
            assertEquals(i % 2, ((Number) t.column("y").get(r)).intValue(), what + " y " + r);
        }
    }

    private static double[] inOrder() {
        return java.util.stream.IntStream.range(0, 12).mapToDouble(i -> i / 2.0).toArray();
    }

    @Test
    void aShuffledFramesStoredIndexIsNoFeatureOnEitherPath() {
        double[] order = Arrays.stream(written.get("order").split(","))
                .mapToDouble(Double::parseDouble).toArray();
        for (String f : List.of("shuffled.parquet", "shuffled.feather")) {
            Table kernel = kernelRead(f);
            assertFrame(kernel, order, f + " in the kernel");
            assertFrame(workerRead(f), order, f + " on a worker");
            ColumnSelection sel = ColumnSelection.allExcept(kernel, "y", LabelKind.CLASSES);
            assertEquals(List.of("x", "k", "name", "cat"), sel.features(), f);
        }
    }

    @Test
    void everyParquetCodecPandasOffersIsRead() {
        for (String codec : List.of("snappy", "gzip", "brotli", "lz4", "zstd", "none")) {
            String f = "codec_" + codec + ".parquet";
            assertFrame(kernelRead(f), inOrder(), f);
            assertFrame(workerRead(f), inOrder(), f + " on a worker");
        }
    }

    @Test
    void featherFilesAreReadWithEveryCompressionAndLargeStrings() {
        for (String codec : List.of("lz4", "zstd", "uncompressed")) {
            String f = "codec_" + codec + ".feather";
            assertFrame(kernelRead(f), inOrder(), f);
            assertFrame(workerRead(f), inOrder(), f + " on a worker");
        }
    }

    @Test
    void lz4FramesOfManyLinkedBlocksAreDecoded() {
        Table whole = kernelRead("big.feather");
        assertEquals(200_000, whole.rowCount());
        assertBig(whole, 0);
        DataFiles files = DataFiles.open(dir.resolve("big.feather").toString());
        assertEquals(200_000, files.rows());
        long first = 0;
        for (int u = 0; u < files.units().size(); u++) { // on a worker, a batch at a time
            Table t = files.read(u, null);
            assertBig(t, first);
            first += t.rowCount();
        }
        assertEquals(200_000, first);
    }

    /** Checks rows of big.feather, the first of them file row {@code first}. */
    private static void assertBig(Table t, long first) {
        for (int r = 0; r < t.rowCount(); r += 7) {
            long i = first + r;
            assertEquals(i % 97, number(t, "n", r), "row " + i);
            assertEquals("s" + (i % 13), t.column("s").getString(r), "row " + i);
        }
    }

    @Test
    void everyFlatTypeIsReadAsTheNumbersOrTextPandasStores() {
        for (String f : List.of("types.feather", "types.parquet")) {
            for (Table t : List.of(kernelRead(f), workerRead(f))) {
                assertEquals(Long.parseLong(written.get("ts0")), number(t, "ts", 0), f);
                assertEquals(Long.parseLong(written.get("ts_utc0")), number(t, "ts_utc", 0), f);
                assertEquals(Long.parseLong(written.get("gap0")), number(t, "gap", 0), f);
                assertEquals(Long.parseLong(written.get("day0")), number(t, "day", 0), f);
                assertTrue(t.column("day").isMissing(2), f + ": a missing date");
                assertArrayEquals(new double[] {1, 2, 250}, doubles(t, "small"), f);
                assertArrayEquals(new double[] {0.5, 1.5, 2.5}, doubles(t, "f32"), f);
                assertArrayEquals(new double[] {1, 0, 1}, doubles(t, "flag"), f);
                assertEquals(7, number(t, "maybe", 0), f);
                assertTrue(t.column("maybe").isMissing(1), f + ": pandas' <NA>");
                assertEquals(List.of("ab", "cd", "ef"), t.column("blob").asList(), f);
                assertEquals("b", t.column("text").getString(1), f);
                assertTrue(t.column("text").isMissing(2), f + ": None in a text column");
                assertEquals(List.of("lo", "hi", "lo"), t.column("cat").asList(), f);
                assertEquals(1.25, doubles(t, "price")[0], f + ": a decimal");
                assertEquals(-3.5, doubles(t, "price")[1], f + ": a decimal");
                assertTrue(t.column("price").isMissing(2), f + ": a missing decimal");
                assertTrue(Columns.isNumeric(t.column("ts")), f + ": times train as numbers");
            }
        }
    }

    private static long number(Table t, String column, int row) {
        return ((Number) t.column(column).get(row)).longValue();
    }

    @Test
    void aCorruptCompressedBufferIsRefusedInOneLineNamingTheCodec() {
        byte[] garbage = "not a compressed buffer at all".getBytes(
                java.nio.charset.StandardCharsets.US_ASCII);
        for (String codec : List.of("LZ4", "ZSTD")) {
            DmlException e = assertThrows(DmlException.class, () -> {
                if (codec.equals("LZ4")) {
                    ArrowCodecs.lz4Frame(garbage, 64);
                } else {
                    ArrowCodecs.zstd(garbage, 64);
                }
            });
            assertTrue(e.what().startsWith("An Arrow buffer compressed with " + codec
                    + " could not be decompressed"), e.getMessage());
            assertEquals(2, e.getMessage().split("\n").length, e.getMessage());
        }
    }

    @Test
    void nestedColumnsAreRefusedInOneLineNamingTheColumn() {
        for (String f : List.of("nested.feather", "nested.parquet")) {
            DmlException e = assertThrows(DmlException.class, () -> kernelRead(f));
            assertTrue(e.what().contains("'tags'"), e.getMessage());
            assertTrue(e.hint().contains("Flatten"), e.getMessage());
            assertEquals(2, e.getMessage().split("\n").length, e.getMessage());
        }
    }

    @Test
    void aCsvWithAHeaderAndNoRowsSaysSoInCellWords() {
        DmlException e = assertThrows(DmlException.class, () -> kernelRead("header_only.csv"));
        String cell = e.speaking(Vocabulary.NOTEBOOK).getMessage();
        assertTrue(cell.startsWith("The CSV file " + dir.resolve("header_only.csv")
                + " has no rows."), cell);
        assertFalse(cell.contains("build()") || cell.contains("addFeature"), cell);
    }
}
