package dev.dml.ray.cluster;

import dev.dml.options.Placement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous training across two namespaced nodes ({@link NamespacedCluster}), two workers
 * each: the workers of a node sum their changes inside the node, and only each node's leader
 * pushes to the parameter servers and pulls from them.
 */
@Tag("cluster")
class AsyncNodesIT extends NamespacedRay {

    private static final Duration WAIT = Duration.ofMinutes(8);

    @BeforeAll
    static void start() throws Exception {
        open(2, "AsyncNodesIT");
    }

    @Test
    void fourWorkersOnTwoNodesPushOncePerNode() {
        TrainResult r = Dml.start(TrainSpec.builder().setTable(SyntheticFraud.generate(8_000, 4))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 32)
                .optEpochs(1).optWorkers(4).optCpusPerWorker(0.5).optSync("async")
                .optParameterServers(2).optName("async-nodes")
                .opt(TrainOptions.PLACEMENT, Placement.PACK).build(), driver).await(WAIT);
        List<WorkerInfo> w = r.workers();
        assertEquals(w.get(0).nodeIp(), w.get(1).nodeIp(), "ranks of a node side by side");
        assertEquals(w.get(2).nodeIp(), w.get(3).nodeIp());
        assertTrue(!w.get(0).nodeIp().equals(w.get(2).nodeIp()), "two nodes: " + w);
        assertEquals("async via 2 parameter servers (TCP)", w.get(0).transport());
        long params = r.parameters().length;
        assertTrue(r.steps().size() > 10);
        for (StepMetrics s : r.steps()) {
            // two leaders, each pushing and pulling the whole model once; the others none
            assertEquals(2 * 2 * params * Float.BYTES, s.allReduceBytes(), "step " + s.step());
        }
        assertTrue(Float.isFinite(r.finalLoss()));
    }
}
