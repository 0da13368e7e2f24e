package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.Dml;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.S3ProxyServer;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code --read-on-workers} from {@code s3://} on a real local cluster, against S3Proxy started
 * here with files pyarrow wrote and boto3 uploaded: the model equals the one trained from the
 * same files on disk, and a job whose store stops before its workers read fails in one line
 * naming the URL, after bounded retries.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3WorkerReadIT extends LocalClusterTests {

    @TempDir
    static Path dir;

    static S3ProxyServer s3;
    static Path local;

    @BeforeAll
    static void upload() throws Exception {
        local = Files.createDirectories(dir.resolve("cancer"));
        s3 = S3ProxyServer.withCancerHalves(Files.createDirectories(dir.resolve("s3")),
                InetAddress.getLoopbackAddress(), local);
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    /** The same job on any files: 2 workers, seeded, each node's cache in its own folder. */
    private static TrainSpecBuilder job(String name, Path cache) {
        Table check = RealTables.breastCancer();
        TrainSpecBuilder b = TrainSpec.builder()
                .setColumns(ColumnSelection.allExcept(check, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optEpochs(2).optWorkers(2).optBatchSize(64).optCpusPerWorker(0.5)
                .optSeed(11).optName(name)
                .addWorkerJvmOption("-Djava.io.tmpdir=" + cache);
        s3.workerCredentials().forEach(b::addWorkerJvmOption);
        return b;
    }

    @Test
    @Order(1)
    void aModelTrainedFromS3EqualsTheOneTrainedFromTheSameFilesOnDisk() throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache-1"));
        TrainResult disk = Dml.start(job("disk", cache).setFiles(local.toString()).build(),
                driver).await(Duration.ofMinutes(4));
        TrainResult remote = Dml.start(job("s3", cache).setFiles("s3://train/cancer/")
                .optS3Endpoint(s3.endpoint()).build(), driver).await(Duration.ofMinutes(4));
        assertEquals(disk.globalSteps(), remote.globalSteps());
        assertEquals(disk.columns().classNames(), remote.columns().classNames());
        assertArrayEquals(disk.parameters(), remote.parameters(),
                "the model trained from s3:// differs from the one trained from disk");
    }

    @Test
    @Order(2)
    void aStoreThatStopsBeforeTheWorkersReadFailsTheJobInOneLine() throws Exception {
        Path cache = Files.createDirectories(dir.resolve("cache-2")); // cold: workers must read
        TrainSpec spec = job("s3-down", cache).setFiles("s3://train/cancer/")
                .optS3Endpoint(s3.endpoint()).build(); // the kernel's scan has read the files
        s3.stop();
        DmlException e = assertThrows(DmlException.class,
                () -> Dml.start(spec, driver).await(Duration.ofMinutes(4)));
        String what = e.what();
        System.out.println("store down: " + what + " / " + e.hint());
        assertTrue(what.contains("Could not reach the S3 endpoint " + s3.endpoint()
                + " for s3://train/cancer/"), what);
        assertTrue(what.contains("after 4 tries"), what);
        assertFalse(e.hint().contains("\n"), e.hint());
    }
}
