package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Convergence with compressed gradients on a real table: 2 workers train a logistic regression
 * on 6,000 Fashion-MNIST images for 2 epochs (186 steps) with int8 and with top-k at 1 %, and an
 * MLP with PowerSGD, and reach nearly the held-out accuracy of uncompressed gradients, in far
 * fewer bytes. Scored on
 * 2,000 test images, where a constant class scores about 0.1.
 */
class CompressFashionMnistTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    /** Held-out accuracy uncompressed runs reach: 0.78-0.83 (see ShuffleTrainingTest). */
    private static final double GOOD = 0.72;

    private static Table train;
    private static Table test;

    @BeforeAll
    static void startRay() throws IOException {
        Path dir = RealTables.fashionMnistDir();
        LocalRay.start();
        train = FashionMnist.load(dir, FashionMnist.Split.TRAIN, 6000).toTable();
        test = FashionMnist.load(dir, FashionMnist.Split.TEST, 2000).toTable();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    /** The held-out accuracy and the bytes all workers sent, of one logistic regression. */
    private static double[] run(String scheme) {
        return run(scheme, ModelSpec.Family.LOGISTIC_REGRESSION);
    }

    /** The held-out accuracy and the bytes all workers sent, of one job. */
    private static double[] run(String scheme, ModelSpec.Family family, int... hidden) {
        TrainSpec spec = TrainSpec.builder().setTable(train).setColumns(FashionMnist.selection())
                .setModel(family, hidden).optEpochs(2).optBatchSize(32)
                .optOptimizer(OptimizerSpec.adam(1e-3f)).optWorkers(2).optCpusPerWorker(0)
                .optCompress(scheme).optName("fmnist-" + family.optionName() + "-"
                        + scheme.replace(':', '-')).build();
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        double acc = Metrics.accuracy(r.predictClasses(test), labels(test));
        long bytes = r.steps().stream().mapToLong(StepMetrics::allReduceBytes).sum();
        System.out.printf("%s %s: held-out accuracy %.3f, %d bytes sent%n", family, scheme, acc,
                bytes);
        return new double[] {acc, bytes};
    }

    private static int[] labels(Table t) {
        return t.intColumn(FashionMnist.LABEL).asIntArray();
    }

    @Test
    void int8AndTopKTrainNearlyAsWellAsNoCompressionInFewerBytes() {
        double[] none = run("none");
        double[] int8 = run("int8");
        double[] topk = run("topk:0.01");
        double constant = Metrics.accuracy(new int[test.rowCount()], labels(test));
        assertTrue(constant < GOOD, "a constant predictor scores " + constant);
        assertTrue(none[0] >= GOOD, "uncompressed " + none[0]);
        assertTrue(int8[0] >= GOOD && int8[0] >= none[0] - 0.03, "int8 " + int8[0]);
        assertTrue(topk[0] >= GOOD && topk[0] >= none[0] - 0.05, "top-k " + topk[0]);
        assertTrue(none[1] / int8[1] >= 3.9, "int8 sends " + none[1] / int8[1] + "x less");
        assertTrue(none[1] / topk[1] >= 50, "top-k sends " + none[1] / topk[1] + "x less");
    }

    /**
     * PowerSGD at rank 4 on an MLP 784-128-10, whose two weight matrices travel as rank-4
     * factors: close to the accuracy of uncompressed gradients, far above a constant class.
     */
    @Test
    void powerSgdTrainsAnMlpNearlyAsWellAsNoCompressionInFewerBytes() {
        double[] none = run("none", ModelSpec.Family.MLP, 128);
        double[] powerSgd = run("powersgd:4", ModelSpec.Family.MLP, 128);
        double constant = Metrics.accuracy(new int[test.rowCount()], labels(test));
        assertTrue(none[0] >= GOOD, "uncompressed " + none[0]);
        assertTrue(powerSgd[0] >= GOOD && powerSgd[0] >= none[0] - 0.03 && powerSgd[0]
                >= constant + 0.5, "PowerSGD " + powerSgd[0] + ", none " + none[0]);
        assertTrue(none[1] / powerSgd[1] >= 20, "PowerSGD sends " + none[1] / powerSgd[1]
                + "x less");
    }
}
