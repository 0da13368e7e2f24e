package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Issue 26, row 9: a worker's cache of decoded units, on a real Parquet file pyarrow wrote, is
 * the user's own (owner-only, refused when others may write into it), and an entry it cannot
 * trust (damaged bytes, or a missing value that the file's own checks would have refused) is
 * dropped and read again from the file instead of being trained on or failing every later job.
 */
class CachedUnitsTest {

    @TempDir
    Path dir;

    @Test
    void row9TheCacheIsPrivateAndRereadsEntriesItCannotTrust() throws Exception {
        if (System.getenv("DML_DATA_CACHE") == null) {
            assertEquals(Path.of(System.getProperty("java.io.tmpdir"), "dml-data-cache-"
                    + System.getProperty("user.name")), ShardCache.defaultDir(), "per user");
        }
        Path cancer = DataFileFixtures.write("breast_cancer.csv", dir.resolve("cancer.parquet"),
                100, "snappy", 1);
        Table t = RealTables.breastCancer();
        DataFiles files = DataFiles.open(cancer.toString());
        ColumnSelection sel = FileScan.of(files,
                ColumnSelection.allExcept(t, "diagnosis", LabelKind.CLASSES)).columns();
        Path cacheDir = dir.resolve("cache");
        FileShard shard = new FileShard(files, new int[] {1, 4}, sel, cacheDir, 64L << 20);
        try (RootAllocator root = new RootAllocator();
                NDManager m = NDManager.newBaseManager("PyTorch");
                ShardDecoder dec = new ShardDecoder(root, "cached-units")) {
            float[] features;
            int[] labels;
            try (ShardArrays first = shard.open(dec, m)) {
                features = first.features().toFloatArray();
                labels = first.labels().toIntArray();
            }
            assertEquals("rwx------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(cacheDir)));

            // unit 1: an entry whose checksum holds but whose first value is NaN, as one
            // planted, or written by a dml that checked less, would be
            ShardCache cache = new ShardCache(cacheDir, 64L << 20);
            String one = shard.cacheKey(1);
            byte[] nan = withNaN(cache.get(one, () -> fail("unit 1 is cached")), features[0]);
            cache.reload(one, () -> nan);
            // unit 4: damaged on disk
            Path four = cache.entry(shard.cacheKey(4));
            byte[] b = Files.readAllBytes(four);
            b[b.length / 2] ^= 0x5a;
            Files.write(four, b);

            FileShard again = FileShard.fromBytes(shard.toBytes());
            try (ShardArrays read = again.open(dec, m)) {
                assertArrayEquals(features, read.features().toFloatArray());
                assertArrayEquals(labels, read.labels().toIntArray());
            }
            assertEquals(0, again.lastHits());
            assertEquals(2, again.lastMisses(), "both read again from the file");
            FileShard third = FileShard.fromBytes(shard.toBytes());
            third.open(dec, m).close();
            assertEquals(2, third.lastHits(), "and cached again");

            Files.setPosixFilePermissions(cacheDir, PosixFilePermissions.fromString(
                    "rwxrwxrwx"));
            DmlException e = assertThrows(DmlException.class, () -> third.open(dec, m));
            e.speaking(Vocabulary.NOTEBOOK);
            assertEquals("The data cache folder " + cacheDir + " can be written by other users"
                    + " (rwxrwxrwx), who could plant data in it.", e.what());
            assertEquals("Run chmod 700 on it, or set DML_DATA_CACHE on the workers to a folder"
                    + " of your own.", e.hint());
        }
    }

    /** The IPC bytes with the float {@code first} (the unit's first value) made NaN. */
    private static byte[] withNaN(byte[] ipc, float first) {
        byte[] want = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(first)
                .array();
        byte[] out = ipc.clone();
        for (int i = 0; i + 4 <= out.length; i++) {
            if (Arrays.equals(out, i, i + 4, want, 0, 4)) {
                ByteBuffer.wrap(out, i, 4).order(ByteOrder.LITTLE_ENDIAN).putFloat(Float.NaN);
                return out;
            }
        }
        throw new AssertionError("the unit's first value is not in its bytes");
    }
}
