package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Worker-read files, on real tables pyarrow wrote: the kernel's streaming scan learns what the
 * whole-table path learns, and a worker's shard, read unit by unit through the cache, holds the
 * rows the kernel path would have sent.
 */
class WorkerReadDataTest {

    @TempDir
    static Path dir;

    static Path cancer;
    static Path penguins;

    @BeforeAll
    static void files() {
        cancer = DataFileFixtures.write("breast_cancer.csv", dir.resolve("cancer.parquet"), 100,
                "snappy", 1);
        penguins = DataFileFixtures.write("penguins.csv", dir.resolve("penguins.arrow"), 50,
                "none", 1);
    }

    private static ColumnSelection cancerColumns(Table t) {
        return ColumnSelection.allExcept(t, "diagnosis", LabelKind.CLASSES);
    }

    @Test
    void theStreamingScanLearnsWhatTheWholeTableGives() {
        Table t = RealTables.breastCancer();
        ColumnSelection sel = cancerColumns(t);
        DataFiles files = DataFiles.open(cancer.toString());
        assertEquals(6, files.units().size());
        FileScan scan = FileScan.of(files, sel);
        assertEquals(569, scan.rows());
        assertSame(scan, FileScan.of(files, sel), "a spec's variants scan the files once");
        List<String> names = LabelClasses.learn(t, "diagnosis");
        assertEquals(names, scan.columns().classNames());
        assertEquals(2, scan.classes());
        FeatureStats whole = FeatureStats.of(t, sel.withClassNames(names));
        for (int f = 0; f < whole.size(); f++) {
            assertEquals(whole.means()[f], scan.stats().means()[f],
                    1e-5 * Math.abs(whole.means()[f]) + 1e-7, "mean " + f);
            assertEquals(whole.stds()[f], scan.stats().stds()[f],
                    1e-5 * Math.abs(whole.stds()[f]) + 1e-7, "std " + f);
        }
    }

    @Test
    void textFeaturesGetTheWholeTablesCategoriesFromArrowBatches() {
        Table t = RealTables.penguins();
        ColumnSelection sel = ColumnSelection.builder().addFeatures("island", "year")
                .setLabel("species", LabelKind.CLASSES).build();
        DataFiles files = DataFiles.open(penguins.toString());
        assertEquals(7, files.units().size(), "344 rows in batches of 50");
        FileScan scan = FileScan.of(files, sel);
        assertEquals(FeatureVocabulary.learn(t, sel), scan.columns().vocabulary());
        assertEquals(List.of("Adelie", "Chinstrap", "Gentoo"), scan.columns().classNames());
        assertEquals(3, scan.classes());
    }

    @Test
    void aWorkersShardHoldsItsUnitsRowsAndTheCacheServesItsRestart() throws Exception {
        Table t = RealTables.breastCancer();
        DataFiles files = DataFiles.open("file://" + cancer);
        ColumnSelection sel = FileScan.of(files, cancerColumns(t)).columns();
        int[] units = {1, 4}; // rows 100..199 and 400..499
        Path cacheDir = dir.resolve("cache");
        FileShard shard = new FileShard(files, units, sel, cacheDir, 64L << 20);
        FileShard copy = FileShard.fromBytes(shard.toBytes()); // as it reaches a worker
        int[] rows = java.util.stream.IntStream.concat(
                java.util.stream.IntStream.range(100, 200),
                java.util.stream.IntStream.range(400, 500)).toArray();
        try (RootAllocator root = new RootAllocator();
                NDManager m = NDManager.newBaseManager("PyTorch");
                ShardDecoder dec = new ShardDecoder(root, "file-shard")) {
            float[] expected;
            int[] labels;
            try (ShardArrays kernelPath = dec.openArrays(
                    ArrowShards.encode(t.rows(rows), sel), m)) {
                expected = kernelPath.features().toFloatArray();
                labels = kernelPath.labels().toIntArray();
            }
            try (ShardArrays read = copy.open(dec, m)) {
                assertEquals(200, read.rows());
                assertArrayEquals(expected, read.features().toFloatArray());
                assertArrayEquals(labels, read.labels().toIntArray());
            }
            assertEquals(0, copy.lastHits());
            assertEquals(2, copy.lastMisses());
            FileShard restarted = FileShard.fromBytes(shard.toBytes());
            try (ShardArrays again = restarted.open(dec, m)) {
                assertArrayEquals(expected, again.features().toFloatArray());
            }
            assertEquals(2, restarted.lastHits(), "a restarted worker reads no file again");
            assertEquals(0, restarted.lastMisses());
        }
    }

    @Test
    void unitsAreDealtToBalanceRowsAndTooFewAreRefused() {
        DataFiles files = DataFiles.open(cancer.toString()); // 100 x 5 + 69
        List<int[]> two = files.deal(2, false, 1);
        assertArrayEquals(new int[] {0, 2, 4}, two.get(0));
        assertArrayEquals(new int[] {1, 3, 5}, two.get(1));
        List<int[]> shuffled = files.deal(3, true, 7);
        int[] all = shuffled.stream().flatMapToInt(Arrays::stream).sorted().toArray();
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, all);
        DmlException e = assertThrows(DmlException.class, () -> files.deal(7, false, 1));
        assertTrue(e.what().contains("6 row groups or record batches, fewer than the 7"),
                e.what());
    }

    @Test
    void locationsArePathsFoldersOrFileUrlsAndOtherSchemesAreRefused() throws Exception {
        // s3:// is read since issue 29 (S3DataFilesTest); other schemes are still refused
        DmlException https = assertThrows(DmlException.class,
                () -> DataFiles.open("https://example.com/train.parquet"));
        assertFalse(https.what().contains("\n"));
        assertTrue(https.what().contains("not https://"), https.what());
        Path folder = Files.createDirectories(dir.resolve("folder"));
        Files.copy(cancer, folder.resolve("a.parquet"));
        Files.copy(cancer, folder.resolve("b.parquet"));
        Files.writeString(folder.resolve("README.txt"), "not data");
        DataFiles both = DataFiles.open(folder.toUri().toString());
        assertEquals(2 * 569, both.rows());
        assertEquals(12, both.units().size());
        DmlException csv = assertThrows(DmlException.class,
                () -> DataFiles.open(RealTables.path("iris.csv").toString()));
        assertTrue(csv.what().contains("Parquet (.parquet) and Arrow IPC (.arrow)"), csv.what());
    }
}
