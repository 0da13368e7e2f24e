package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import dev.dml.ray.Dml;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous training through 2 parameter servers on a real local cluster: workers and
 * servers in their own JVMs, the updates as Ray actor calls. A job trains Fashion-MNIST to a
 * good held-out accuracy, and a worker killed with {@code kill -9} mid-job is replaced, the
 * servers re-seeded from a peer's snapshot, and the job ends with every step.
 */
@Tag("cluster")
class AsyncIT extends LocalClusterTests {

    private static final Duration WAIT = Duration.ofMinutes(5);

    private static TrainResult train(String name, String sync, RecoveryIT.Saboteur s) {
        return Dml.start(TrainSpec.builder().setTable(FashionMnistSlices.train())
                .setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.MLP, 64).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optEpochs(2).optBatchSize(32).optWorkers(2).optCpusPerWorker(0.5)
                .optSync(sync).optParameterServers(2).optReportEvery(10).addListener(s)
                .optName(name).build(), driver).await(WAIT);
    }

    private static double accuracy(TrainResult r) {
        double acc = FashionMnistSlices.accuracy(r);
        System.out.printf("%s: held-out accuracy %.3f%n", r, acc);
        return acc;
    }

    @Test
    void twoServersTrainFashionMnistAsynchronouslyAndWithBoundedStaleness() {
        for (String sync : new String[] {"async", "ssp:1"}) {
            TrainResult r = train("async-" + sync.replace(':', '-'), sync,
                    new RecoveryIT.Saboteur(0, 0, null));
            assertEquals(2 * 93, r.globalSteps());
            assertTrue(accuracy(r) >= FashionMnistSlices.GOOD, sync);
            assertTrue(r.steps().stream().allMatch(s -> s.allReduceBytes() > 0),
                    "every step pushed and pulled through the servers");
        }
    }

    @Test
    void aKilledWorkerIsReplacedAndTheServersReseeded() {
        RecoveryIT.Saboteur killer = new RecoveryIT.Saboteur(40, 1,
                ProcessHandle::destroyForcibly);
        TrainResult r = train("async-killed", "async", killer);
        assertEquals(1, r.recoveries().size(), r.toString());
        Recovery rec = r.recoveries().get(0);
        assertEquals("a peer's snapshot", rec.restoredFrom(), rec.toString());
        assertFalse(rec.workers().stream().anyMatch(w -> w.pid() == killer.victim));
        assertEquals(2 * 93, r.globalSteps());
        assertEquals(2 * 93, r.steps().stream().mapToLong(StepMetrics::step).distinct().count(),
                "the record has each step once");
        assertTrue(accuracy(r) >= FashionMnistSlices.GOOD);
    }
}
