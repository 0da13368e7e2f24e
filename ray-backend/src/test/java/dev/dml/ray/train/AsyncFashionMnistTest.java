package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Convergence through parameter servers on a real table, in Ray's LOCAL mode: 2 workers train
 * an MLP 784-64-10 on 6,000 Fashion-MNIST images for 2 epochs, synchronously, asynchronously and
 * with a staleness bound of 1, the last two through 2 servers (async over direct TCP links to
 * them, ssp:1 over Ray's actor calls), and the asynchronous runs reach
 * the held-out accuracy of the synchronous one within {@link #MARGIN}
 * ({@link FashionMnistSlices}: a constant class scores about 0.1).
 */
@ExtendWith(LocalRayExtension.class)
class AsyncFashionMnistTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    /** How far below the synchronous run's accuracy an asynchronous one may end. */
    static final double MARGIN = 0.03;

    @BeforeAll
    static void startRay() throws IOException {
        FashionMnistSlices.train();
    }

    /** The held-out accuracy of one job, and the bytes its workers sent. */
    private static double[] run(String sync, String transport) {
        TrainSpecBuilder b = TrainSpec.builder().setTable(FashionMnistSlices.train())
                .setColumns(FashionMnist.selection()).setModel(ModelSpec.Family.MLP, 64)
                .optEpochs(2).optBatchSize(32).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optWorkers(2).optCpusPerWorker(0).optSync(sync)
                .opt(dev.dml.options.TrainOptions.TRANSPORT,
                        dev.dml.options.TrainOptions.TRANSPORT.checkWord(transport))
                .optName("fmnist-" + sync.replace(':', '-'));
        if (!"sync".equals(sync)) {
            b.optParameterServers(2);
        }
        TrainSpec spec = b.build();
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        assertEquals(2 * 93, r.globalSteps());
        if (!"sync".equals(sync)) {
            assertEquals(sync + " via 2 parameter servers (" + ("tcp".equals(transport) ? "TCP"
                    : "Ray calls") + ")",
                    r.workers().get(0).transport(), "the cell's links line says so");
        }
        double acc = FashionMnistSlices.accuracy(r);
        long bytes = r.steps().stream().mapToLong(StepMetrics::allReduceBytes).sum();
        System.out.printf("%s: held-out accuracy %.3f, %d bytes%n", sync, acc, bytes);
        return new double[] {acc, bytes};
    }

    @Test
    void asyncAndSspTrainNearlyAsWellAsSyncAtEqualEpochs() {
        double good = FashionMnistSlices.GOOD;
        double[] sync = run("sync", "tcp");
        double[] async = run("async", "tcp");
        double[] ssp = run("ssp:1", "ray");
        double constant = FashionMnistSlices.constantAccuracy();
        assertTrue(constant < good, "a constant predictor scores " + constant);
        assertTrue(sync[0] >= good, "sync " + sync[0]);
        assertTrue(async[0] >= good && async[0] >= sync[0] - MARGIN, "async " + async[0]
                + ", sync " + sync[0]);
        assertTrue(ssp[0] >= good && ssp[0] >= sync[0] - MARGIN, "ssp:1 " + ssp[0] + ", sync "
                + sync[0]);
        assertTrue(async[1] > 0 && ssp[1] > 0, "the servers' traffic is counted");
    }
}
