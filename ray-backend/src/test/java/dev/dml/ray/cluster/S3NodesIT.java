package dev.dml.ray.cluster;

import dev.dml.options.Placement;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.S3ProxyServer;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * {@code s3://} data read by workers on two namespaced nodes: S3Proxy listens on the head's
 * bridge address, which every node reaches, with files pyarrow wrote and boto3 uploaded. A
 * 2-worker job spread over both nodes trains from the bucket, and its model equals the one the
 * same job trains from the same files in the folder every node mounts.
 */
@Tag("cluster")
@Tag("slow")
class S3NodesIT extends NamespacedRay {

    private static final Duration WAIT = Duration.ofMinutes(8);
    private static Path dir;
    private static Path shared;
    private static S3ProxyServer s3;

    @BeforeAll
    static void start() throws Exception {
        open(2, "S3NodesIT");
        dir = Files.createTempDirectory("dml-s3-nodes-");
        shared = Files.createDirectories(nodes.shared().resolve("cancer"));
        s3 = S3ProxyServer.withCancerHalves(Files.createDirectories(dir.resolve("s3")),
                InetAddress.getByName(HostNetwork.HEAD_IP), shared);
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
        if (dir != null) {
            Processes.deleteTree(dir);
        }
    }

    /** The same job on any files: one worker on each node, seeded. */
    private static TrainSpecBuilder job(String name) {
        Table check = RealTables.breastCancer();
        TrainSpecBuilder b = TrainSpec.builder()
                .setColumns(ColumnSelection.allExcept(check, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optEpochs(2).optWorkers(2).optBatchSize(64).optSeed(11).optName(name)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD);
        s3.workerCredentials().forEach(b::addWorkerJvmOption);
        return b;
    }

    @Test
    void aModelTrainedFromS3OnTwoNodesEqualsTheOneTrainedFromTheSharedFolder() {
        TrainResult disk = Dml.start(job("s3-nodes-disk").setFiles(shared.toString()).build(),
                driver).await(WAIT);
        TrainResult remote = Dml.start(job("s3-nodes").setFiles("s3://train/cancer/")
                .optS3Endpoint(s3.endpoint()).build(), driver).await(WAIT);
        Set<String> nodeIps = new TreeSet<>();
        nodes.nodes().forEach(n -> nodeIps.add(n.ip()));
        Set<String> used = new TreeSet<>();
        for (WorkerInfo w : remote.workers()) {
            used.add(w.nodeIp());
        }
        assertEquals(nodeIps, used, "one worker on each node: " + remote.workers());
        assertEquals(disk.globalSteps(), remote.globalSteps());
        assertArrayEquals(disk.parameters(), remote.parameters(),
                "the model trained from s3:// on two nodes differs from the one trained from"
                        + " the shared folder");
    }
}
