package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, row 10: a file rewritten after the kernel's scan (which checked its labels and
 * learnt its statistics) must not reach training unchecked, nor enter the node's cache under the
 * old file's key. A worker reading it refuses in one line naming the file.
 */
class RewrittenFileTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() {
        Python.requirePandas();
        Python.runScript("write_pandas.py", dir.toString());
    }

    private static Path copy(String from, String to) throws Exception {
        return Files.copy(dir.resolve(from), dir.resolve(to),
                StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void row10_aWorkerRefusesAFileRewrittenAfterTheScanAndCachesNothing() throws Exception {
        Path data = copy("codec_snappy.parquet", "data.parquet");
        DataFiles files = DataFiles.open(data.toString());
        ColumnSelection sel = ColumnSelection.builder().addFeatures("x", "k")
                .setLabel("y", LabelKind.CLASSES).build();
        FileScan scan = FileScan.of(files, sel);
        assertEquals(12, scan.rows());
        copy("codec_zstd.parquet", "data.parquet"); // new contents, as a rewrite leaves them
        Path cacheDir = dir.resolve("cache");
        FileShard shard = FileShard.fromBytes(
                new FileShard(files, new int[] {0}, scan.columns(), cacheDir, 1L << 20).toBytes());
        try (RootAllocator root = new RootAllocator();
                NDManager m = NDManager.newBaseManager("PyTorch");
                ShardDecoder dec = new ShardDecoder(root, "rewritten")) {
            DmlException e = assertThrows(DmlException.class, () -> shard.open(dec, m));
            assertTrue(e.what().startsWith("The file " + data + " changed after the job checked"
                    + " its rows"), e.getMessage());
            assertTrue(e.hint().startsWith("Run the training again"), e.getMessage());
            assertEquals(2, e.getMessage().split("\n").length, e.getMessage());
        }
        assertEquals(0, countFiles(cacheDir), "nothing cached under the old file's key");
    }

    @Test
    void row10_theSameSizeWithANewTimeIsARewriteToo() throws Exception {
        Path data = copy("codec_snappy.parquet", "same.parquet");
        DataFiles files = DataFiles.open(data.toString());
        Files.setLastModifiedTime(data, FileTime.fromMillis(
                Files.getLastModifiedTime(data).toMillis() + 1));
        DmlException e = assertThrows(DmlException.class, () -> files.read(0, null));
        assertTrue(e.what().contains(data.toString()), e.getMessage());
        Files.delete(data);
        e = assertThrows(DmlException.class, () -> files.read(0, null));
        assertTrue(e.what().contains("it is gone"), e.getMessage());
    }

    private static long countFiles(Path d) throws Exception {
        if (!Files.isDirectory(d)) {
            return 0;
        }
        try (var s = Files.walk(d)) {
            return s.filter(Files::isRegularFile).count();
        }
    }
}
