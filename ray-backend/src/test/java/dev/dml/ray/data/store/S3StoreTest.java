package dev.dml.ray.data.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.data.DataFileFixtures;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.S3ProxyServer;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * The S3 store against S3Proxy: a listing pages through every key, a row group is read by its
 * footer and its own column chunks, not the whole object, and a read goes on when the store
 * comes back within the retries.
 */
class S3StoreTest {

    @TempDir
    static Path dir;

    static S3ProxyServer s3;
    static Path file;

    @BeforeAll
    static void upload() throws Exception {
        file = DataFileFixtures.write("breast_cancer.csv", dir.resolve("cancer.parquet"), 100,
                "snappy", 4); // 2,276 rows in 23 row groups
        s3 = S3ProxyServer.start(Files.createDirectories(dir.resolve("s3")));
        s3.useItsCredentials();
        List<String> args = new ArrayList<>(List.of(file.toString(), "big/cancer.parquet"));
        for (int i = 0; i < 5; i++) {
            args.addAll(List.of(file.toString(), "pages/part-" + i + ".parquet"));
        }
        s3.upload("store", args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void aListingPagesThroughEveryKey() {
        long before = DataStore.traffic()[0];
        DataStore.Listing l = new S3Store(s3.endpoint(), 2).list("s3://store/pages/");
        assertEquals(DataStore.Kind.FOLDER, l.kind());
        assertEquals(List.of("part-0.parquet", "part-1.parquet", "part-2.parquet",
                "part-3.parquet", "part-4.parquet"),
                l.files().stream().map(StoredFile::name).toList());
        assertEquals(3, DataStore.traffic()[0] - before, "three pages of at most two keys");
    }

    @Test
    void aRowGroupIsReadByItsOwnRangesNotTheWholeObject() {
        DataFiles files = DataFiles.open("s3://store/big/cancer.parquet", s3.endpoint());
        assertEquals(23, files.units().size());
        long[] before = DataStore.traffic();
        Table t = files.read(7, List.of("mean radius", "diagnosis"));
        long[] after = DataStore.traffic();
        assertEquals(100, t.rowCount());
        long bytes = after[1] - before[1];
        long objectBytes = file.toFile().length();
        Table all = files.read(8, null);
        long allBytes = DataStore.traffic()[1] - after[1];
        System.out.printf("one row group, 2 columns: %d requests, %d bytes; all %d columns:"
                + " %d bytes; the object: %d bytes%n", after[0] - before[0], bytes,
                all.columnCount(), allBytes, objectBytes);
        // the footer (23 row groups' statistics) is most of both; the rows are the rest
        assertTrue(allBytes < objectBytes / 2, allBytes + " of " + objectBytes + " bytes");
        assertTrue(bytes < allBytes, "2 columns cost " + bytes + ", all " + allBytes);
    }

    @Test
    void aStoreBackWithinTheRetriesIsReadOnAndTheRetriesCounted() throws Exception {
        StoredFile listed = new S3Store(s3.endpoint()).list("s3://store/big/cancer.parquet")
                .files().get(0);
        long retried = DataStore.retries();
        ByteBuffer tail = ByteBuffer.allocate(4);
        try (Relay relay = new Relay(URI.create(s3.endpoint()).getPort(), 2);
                SeekableByteChannel ch = new S3Store(relay.endpoint()).open(listed)) {
            ch.position(listed.size() - 4).read(tail);
        }
        assertEquals("PAR1", new String(tail.array(), StandardCharsets.US_ASCII),
                "the object's last bytes, read once the store was back");
        // dml counts the tries it repeats; the HTTP client may itself reopen a connection that
        // was reset before the request went out, so two resets cost dml one or two tries
        long counted = DataStore.retries() - retried;
        assertTrue(counted >= 1 && counted <= 2, counted + " retries counted for 2 resets");
    }
}
