package dev.dml.ray.cluster;

import dev.dml.options.Placement;
import dev.dml.options.CheckpointWriter;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.RecordedEvents;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.TrainingListener;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tech.tablesaw.api.Table;

/**
 * dml on a real cluster of several nodes ({@link NamespacedCluster}): a head on this machine
 * with no CPUs, and namespaced nodes of one CPU each that cannot see the kernel's jars or
 * files. The driver runs here, as a kernel on a cluster's head does. The tests tagged {@code
 * slow} (CI runs them) train Fashion-MNIST across nodes, move a job to new nodes and resume
 * it, reduce hierarchically, and lose a node mid-job; they run in order, on one cluster.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiNodeIT extends NamespacedRay {

    private static final Duration WAIT = Duration.ofMinutes(8);
    private static Path kernelDir;
    private static FashionMnist train;
    private static FashionMnist test;
    private static TrainResult acrossNodes;
    private static Set<String> firstNodes;

    @BeforeAll
    static void start() throws Exception {
        open(2, "MultiNodeIT");
        kernelDir = Files.createTempDirectory("dml12-kernel-"); // hidden from every node
    }

    @AfterAll
    static void deleteKernelDir() {
        Processes.deleteTree(kernelDir); // JUnit closes the cluster after this
    }

    private static Set<String> ips(List<WorkerInfo> workers) {
        Set<String> out = new HashSet<>();
        workers.forEach(w -> out.add(w.nodeIp()));
        return out;
    }

    private static Set<String> nodeIps() {
        Set<String> out = new HashSet<>();
        nodes.nodes().forEach(n -> out.add(n.ip()));
        return out;
    }

    @Test
    @Order(1)
    void actorsOnEveryNodeLoadDmlWithoutSeeingTheKernelsJars() {
        List<String> kernelPaths = new ArrayList<>();
        for (Path p : Classpaths.withoutRay(Classpaths.current())) {
            kernelPaths.add(p.toString());
        }
        assertTrue(kernelPaths.stream().anyMatch(p -> p.endsWith("classes")),
                "the kernel's own classes are among the paths checked");
        List<NodeProbe.Report> reports = driver.call(new NodeProbe.Run(2, kernelPaths));
        Set<String> ips = new HashSet<>();
        for (NodeProbe.Report r : reports) {
            ips.add(r.ip);
            assertEquals(List.of(), r.readable, "node " + r.ip + " reads the kernel's jars");
        }
        assertEquals(nodeIps(), ips, "one probe per namespaced node");
    }

    @Test
    @Order(2)
    void spreadWorkersRunOnDistinctNodesAndTheirAllReduceCrossesThem() {
        RecordedEvents rec = new RecordedEvents();
        TrainResult r = Dml.start(TrainSpec.builder().setTable(SyntheticFraud.generate(4_000, 3))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 32)
                .optEpochs(1).optWorkers(2).optName("spread").addListener(rec)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD).build(), driver).await(WAIT);
        assertEquals(nodeIps(), ips(r.workers()), "one worker on each node: " + r.workers());
        StepMetrics s = rec.steps.get(rec.steps.size() - 1);
        assertTrue(s.allReduceBytes() > 0);
        assertEquals(s.allReduceBytes(), s.interNodeBytes(), "one rank a node: all crosses");
        for (WorkerInfo w : r.workers()) {
            assertEquals("tcp", w.transport(), "direct links between the namespaced nodes: "
                    + r.workers());
        }
    }

    private static TrainSpecBuilder fashion(String name, int epochs, RecordedEvents rec) {
        return TrainSpec.builder().setTable(train.toTable()).setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.MLP, 128).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optEpochs(epochs).optBatchSize(64).optWorkers(2).optReportEvery(20)
                .optName(name).addListener(rec);
    }

    private static double accuracy(TrainResult r) {
        return Metrics.accuracy(r.predictClasses(test.toTable()), test.labels());
    }

    @Test
    @Order(3)
    @Tag("slow")
    void fashionMnistOnTwoNodesTrainsAsWellAsOnOne() {
        train = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TRAIN, 10_000);
        test = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TEST, 2_000);
        RecordedEvents two = new RecordedEvents();
        acrossNodes = Dml.start(fashion("fashion", 1, two)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD)
                .optCheckpoints(kernelDir, 26).build(), driver).await(WAIT);
        firstNodes = ips(acrossNodes.workers());
        assertEquals(nodeIps(), firstNodes, "the workers ran on distinct nodes");
        TrainResult oneNode = Dml.start(fashion("one-node", 1, new RecordedEvents())
                .optCpusPerWorker(0.5).opt(TrainOptions.PLACEMENT, Placement.PACK).build(), driver)
                .await(WAIT);
        assertEquals(1, ips(oneNode.workers()).size(), "pack: both workers on one node");
        double a = accuracy(acrossNodes);
        double b = accuracy(oneNode);
        System.out.printf("fashion-mnist 10k, 1 epoch: two nodes %.4f, one node %.4f%n", a, b);
        assertTrue(a >= 0.75, "accuracy across nodes " + a);
        assertEquals(b, a, 0.01, "two nodes train as well as one");
    }

    @Test
    @Order(4)
    @Tag("slow")
    void theSharedStoreNeedsAFolderEveryNodeSees() {
        DmlException e = assertThrows(DmlException.class, () -> Dml.start(
                fashion("unshared", 1, new RecordedEvents()).optCheckpoints(kernelDir, 26)
                        .opt(TrainOptions.CHECKPOINT_STORE, CheckpointWriter.SHARED).build(),
                        driver)
                .await(WAIT));
        assertTrue(e.what().contains("is not shared with every worker"), e.what());
        TrainResult r = Dml.start(fashion("shared", 1, new RecordedEvents())
                .optCheckpoints(nodes.shared(), 26)
                .opt(TrainOptions.CHECKPOINT_STORE, CheckpointWriter.SHARED)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD).build(), driver).await(WAIT);
        assertEquals(nodeIps(), ips(r.workers()));
    }

    @Test
    @Order(5)
    @Tag("slow")
    void aJobResumesWhenItsWorkersMoveToOtherNodes() throws Exception {
        for (NamespacedCluster.Node n : nodes.nodes()) {
            nodes.removeNode(n); // the VMs are gone, and their files with them
        }
        nodes.addNode();
        nodes.addNode();
        RecordedEvents rec = new RecordedEvents();
        TrainResult resumed = Dml.start(fashion("fashion", 2, rec)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD).optCheckpoints(kernelDir, 26)
                .optResume(true).build(), driver).await(WAIT);
        assertEquals(acrossNodes.globalSteps(), resumed.resumedFromStep());
        assertEquals(2 * acrossNodes.globalSteps(), resumed.globalSteps());
        assertEquals(nodeIps(), ips(resumed.workers()), "the resumed job runs on the new nodes");
        assertTrue(ips(resumed.workers()).stream().noneMatch(firstNodes::contains));
        assertEquals(List.of("--resume: job 'fashion' continues from its checkpoint of step "
                + acrossNodes.globalSteps() + "."), rec.notices);
        assertTrue(accuracy(resumed) >= accuracy(acrossNodes) - 0.01, "it trained on");

        TrainResult shared = Dml.start(fashion("shared", 2, new RecordedEvents())
                .optCheckpoints(nodes.shared(), 26)
                .opt(TrainOptions.CHECKPOINT_STORE, CheckpointWriter.SHARED)
                .optResume(true).build(), driver).await(WAIT);
        assertEquals(acrossNodes.globalSteps(), shared.resumedFromStep(),
                "new nodes read the stage files the old ones wrote");
    }

    @Test
    @Order(6)
    @Tag("slow")
    void fourWorkersOnTwoNodesReduceInsideEachNodeThenAcross() {
        RecordedEvents rec = new RecordedEvents();
        TrainResult r = Dml.start(TrainSpec.builder().setTable(SyntheticFraud.generate(8_000, 4))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 32)
                .optEpochs(1).optWorkers(4).optCpusPerWorker(0.5).optName("hierarchical")
                .addListener(rec).opt(TrainOptions.PLACEMENT, Placement.PACK).build(), driver)
                .await(WAIT);
        List<WorkerInfo> w = r.workers();
        assertEquals(w.get(0).nodeIp(), w.get(1).nodeIp(), "ranks of a node side by side");
        assertEquals(w.get(2).nodeIp(), w.get(3).nodeIp());
        assertTrue(!w.get(0).nodeIp().equals(w.get(2).nodeIp()), "two nodes: " + w);
        long params = r.parameters().length;
        for (StepMetrics s : rec.steps) {
            // only the two leaders cross, each sending the array once (half, twice): the
            // gradients and the one float that carries a pre-emption notice
            assertEquals(2 * (params + 1) * Float.BYTES, s.interNodeBytes(), "step " + s.step());
            assertTrue(s.allReduceBytes() > s.interNodeBytes());
        }
    }

    @Test
    @Order(7)
    @Tag("slow")
    void aJobThatLosesANodeGoesOnOnASpareAsIfNothingHappened() throws Exception {
        while (nodes.nodes().size() < 3) {
            nodes.addNode(); // two for the job, one spare
        }
        Table rows = SyntheticFraud.generate(2 * 64 * 40, 9);
        TrainResult straight = Dml.start(lossSpec("no-loss", rows, null), driver).await(WAIT);
        NodeKiller killer = new NodeKiller(30);
        TrainResult r = Dml.start(lossSpec("node-loss", rows, killer), driver).await(WAIT);
        assertEquals(1, r.recoveries().size(), r.toString());
        Recovery rec = r.recoveries().get(0);
        assertEquals("a peer's snapshot", rec.restoredFrom(), rec.toString());
        assertTrue(!rec.preemption() && r.failures() == 1, rec.toString());
        assertTrue(nodeIps().containsAll(ips(r.workers())), "the job ends on live nodes: "
                + r.workers());
        assertTrue(!ips(r.workers()).contains(killer.lostIp), "a worker still on the lost node");
        assertEquals(straight.globalSteps(), r.globalSteps());
        assertArrayEquals(straight.parameters(), r.parameters(), "same model as without loss");
    }

    private static TrainSpec lossSpec(String name, Table rows, TrainingListener listener) {
        TrainSpecBuilder b = TrainSpec.builder().setTable(rows)
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 32, 16)
                .optOptimizer(OptimizerSpec.adam(0.01f))
                .optEpochs(2).optBatchSize(64).optWorkers(2).optReportEvery(5).optSeed(5)
                .opt(TrainOptions.PLACEMENT, Placement.SPREAD).optName(name);
        return (listener == null ? b : b.addListener(listener)).build();
    }

    /** Takes away the node of rank 1 once the job has passed a step, as a lost VM goes. */
    static final class NodeKiller implements TrainingListener {
        private final long atStep;
        private volatile List<WorkerInfo> workers = List.of();
        private volatile boolean done;
        volatile String lostIp;

        NodeKiller(long atStep) {
            this.atStep = atStep;
        }

        @Override
        public void onStart(List<WorkerInfo> w) {
            workers = List.copyOf(w);
        }

        @Override
        public void onStep(StepMetrics s) {
            if (!done && s.step() >= atStep) {
                done = true;
                lostIp = workers.get(1).nodeIp();
                nodes.nodes().stream().filter(n -> n.ip().equals(lostIp)).findFirst()
                        .ifPresent(nodes::loseNode);
            }
        }
    }
}
