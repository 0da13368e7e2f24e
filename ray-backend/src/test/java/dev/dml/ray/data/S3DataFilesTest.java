package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.data.store.StoredFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code s3://} data against a real S3-compatible server (S3Proxy) that the test starts, with
 * files pyarrow wrote and boto3 uploaded: the same units, rows and scan as the files on disk,
 * the kernel's reads of CSV, Arrow and Parquet objects, cache keys with the ETag, an object
 * replaced during a job, and each failure as one line naming the URL and the fix.
 */
class S3DataFilesTest {

    @TempDir
    static Path dir;

    static S3ProxyServer s3;
    static Path local;
    static Map<String, String> etags;

    @BeforeAll
    static void upload() throws Exception {
        local = Files.createDirectories(dir.resolve("cancer"));
        Path pq = DataFileFixtures.write("breast_cancer.csv", local.resolve("a.parquet"), 100,
                "snappy", 1);
        Path ar = DataFileFixtures.write("breast_cancer.csv", local.resolve("b.arrow"), 100,
                "none", 1);
        Path csv = RealTables.path("breast_cancer.csv");
        Path notes = Files.writeString(dir.resolve("notes.txt"), "not data");
        s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")));
        s3.useItsCredentials();
        etags = s3.upload("data", pq.toString(), "cancer/a.parquet", ar.toString(),
                "cancer/b.arrow", notes.toString(), "cancer/notes.txt", csv.toString(),
                "tables/breast_cancer.csv", pq.toString(), "tables/a.parquet", ar.toString(),
                "tables/b.arrow", notes.toString(), "empty/notes.txt", pq.toString(),
                "replaced/x.parquet");
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    private static DataFiles open(String url) {
        return DataFiles.open(url, s3.endpoint());
    }

    @Test
    void aPrefixReadsAsTheSameFilesOnDisk() {
        DataFiles remote = open("s3://data/cancer/");
        DataFiles disk = DataFiles.open(local.toString());
        assertEquals(disk.rows(), remote.rows());
        assertEquals(12, remote.units().size(), "6 row groups + 6 batches; notes.txt left out");
        for (int u = 0; u < remote.units().size(); u++) {
            assertEquals(disk.read(u, null).toString(), remote.read(u, null).toString());
        }
        Table t = RealTables.breastCancer();
        ColumnSelection sel = ColumnSelection.allExcept(t, "diagnosis", LabelKind.CLASSES);
        FileScan a = FileScan.of(remote, sel);
        FileScan b = FileScan.of(disk, sel);
        assertEquals(b.rows(), a.rows());
        assertEquals(b.columns().classNames(), a.columns().classNames());
        assertTrue(java.util.Arrays.equals(b.stats().means(), a.stats().means()));
        assertTrue(java.util.Arrays.equals(b.stats().stds(), a.stats().stds()));
        // a key with no object, whose key/ holds files, is that folder
        assertEquals(12, open("s3://data/cancer").units().size());
        assertEquals(6, open("s3://data/cancer/a.parquet").units().size());
    }

    @Test
    void theCacheKeyHoldsBucketKeySizeAndEtag() {
        DataFiles one = open("s3://data/cancer/a.parquet");
        String key = one.key(0);
        String etag = etags.get("etag.cancer/a.parquet");
        assertTrue(key.startsWith("s3://data/cancer/a.parquet|"), key);
        assertTrue(key.contains("|" + etag + "|"), key + " lacks " + etag);
    }

    @Test
    void theKernelReadsCsvArrowAndParquetObjects() {
        try (RootAllocator a = new RootAllocator()) {
            Table csv = TableReaders.read("s3://data/tables/breast_cancer.csv", s3.endpoint(), a);
            assertEquals(TableReaders.read(RealTables.path("breast_cancer.csv"), a).toString(),
                    csv.toString());
            Table pq = TableReaders.read("s3://data/tables/a.parquet", s3.endpoint(), a);
            assertEquals(ParquetFiles.read(local.resolve("a.parquet")).toString(),
                    pq.toString());
            Table ar = TableReaders.read("s3://data/tables/b.arrow", s3.endpoint(), a);
            assertEquals(TableReaders.read(local.resolve("b.arrow"), a).toString(),
                    ar.toString());
            DmlException prefix = assertThrows(DmlException.class,
                    () -> TableReaders.read("s3://data/tables/", s3.endpoint(), a));
            assertTrue(prefix.what().contains("it is a prefix"), prefix.what());
        }
    }

    @Test
    void anObjectReplacedDuringAJobIsNeverServedStale() throws Exception {
        DataFiles files = open("s3://data/replaced/x.parquet");
        DataStore store = DataStore.of("s3://data/replaced/x.parquet", s3.endpoint());
        StoredFile listed = store.list("s3://data/replaced/x.parquet").files().get(0);
        files.read(0, null);
        s3.upload("data", local.resolve("b.arrow").toString(), "replaced/x.parquet");
        DmlException e = assertThrows(DmlException.class, () -> files.read(1, null));
        assertTrue(e.what().startsWith("The file s3://data/replaced/x.parquet changed after the"
                + " job checked its rows"), e.what());
        assertTrue(e.hint().contains("Run the training again"), e.hint());
        // a ranged GET of the old version is refused by its ETag (If-Match), not served
        DmlException read = assertThrows(DmlException.class,
                () -> store.open(listed).read(java.nio.ByteBuffer.allocate(16)));
        assertTrue(read.what().contains("changed after the job checked its rows (ETag "
                + listed.version() + " then"), read.what());
    }

    @Test
    void eachFailureIsOneLineNamingTheUrlAndTheFix() throws Exception {
        DmlException empty = oneLine(() -> open("s3://data/empty/"));
        assertEquals("The prefix s3://data/empty/ holds no .parquet or .arrow object.",
                empty.what());
        DmlException bucket = oneLine(() -> open("s3://no-such-bucket/x/"));
        assertTrue(bucket.what().startsWith("The bucket no-such-bucket of"
                + " s3://no-such-bucket/x/ does not exist"), bucket.what());
        DmlException missing = oneLine(() -> open("s3://data/nothing.parquet"));
        assertEquals("There is no object or prefix s3://data/nothing.parquet.", missing.what());
        System.setProperty("aws.secretAccessKey", "wrong");
        try {
            DmlException denied = oneLine(() -> open("s3://data/cancer/"));
            assertTrue(denied.what().startsWith("Access to s3://data/cancer/ at "
                    + s3.endpoint() + " was denied"), denied.what());
            assertTrue(denied.hint().contains("instance profile"), denied.hint());
        } finally {
            s3.useItsCredentials();
        }
        String closed;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            closed = "http://127.0.0.1:" + free.getLocalPort();
        }
        long retried = DataStore.retries();
        DmlException down = oneLine(() -> DataFiles.open("s3://data/cancer/", closed));
        assertEquals(retried + 3, DataStore.retries(), "3 retries after the first try, counted"
                + " for the job's summary");
        assertTrue(down.what().startsWith("Could not reach the S3 endpoint " + closed
                + " for s3://data/cancer/ after 4 tries"), down.what());
        assertTrue(down.hintTemplate().contains("{s3-endpoint}"), down.hintTemplate());
        DmlException bad = oneLine(() -> DataFiles.open("s3://data/", "minio:9000"));
        assertTrue(bad.what().contains("no http:// or https:// URL"), bad.what());
    }

    private static DmlException oneLine(org.junit.jupiter.api.function.Executable call) {
        DmlException e = assertThrows(DmlException.class, call);
        assertFalse(e.what().contains("\n"), e.what());
        assertFalse(e.hint().contains("\n"), e.hint());
        return e;
    }
}
