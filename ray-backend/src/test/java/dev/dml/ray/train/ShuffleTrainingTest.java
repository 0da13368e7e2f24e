package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.RowOrder;
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
 * Shuffling on a real table sorted by its label: 6,000 Fashion-MNIST training images, all
 * T-shirts first and all ankle boots last. In the table's order every batch holds one class, and
 * the model ends each epoch pulled towards the last classes it saw; shuffled, it learns as on a
 * table whose rows were mixed. Scored on 2,000 test images.
 */
class ShuffleTrainingTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    /**
     * Held-out accuracy a good run reaches: it measured 0.78-0.83 for mixed or shuffled rows,
     * 0.47-0.63 for the sorted rows in their order, and a constant class scores about 0.1.
     */
    private static final double GOOD = 0.72;

    private static Table train;
    private static Table test;

    @BeforeAll
    static void startRay() throws IOException {
        Path dir = RealTables.fashionMnistDir();
        LocalRay.start();
        train = FashionMnist.load(dir, FashionMnist.Split.TRAIN, 6000).toTable()
                .sortAscendingOn(FashionMnist.LABEL);
        test = FashionMnist.load(dir, FashionMnist.Split.TEST, 2000).toTable();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    private static double accuracy(Table rows, TrainSpecBuilder b) {
        TrainSpec spec = b.setTable(rows).setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION).optEpochs(2).optBatchSize(64)
                .optOptimizer(OptimizerSpec.adam(1e-3f)).optCpusPerWorker(0).build();
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        double acc = Metrics.accuracy(r.predictClasses(test), labels(test));
        System.out.printf("%s: held-out accuracy %.3f%n", spec.name(), acc);
        return acc;
    }

    private static int[] labels(Table t) {
        return t.intColumn(FashionMnist.LABEL).asIntArray();
    }

    @Test
    void aLabelSortedTableTrainsToTheAccuracyOfAShuffledOne() {
        assertEquals(0, labels(train)[0]);
        assertEquals(9, labels(train)[train.rowCount() - 1], "sorted by label");
        Table mixed = train.emptyCopy();
        for (int i : RowOrder.permutation(train.rowCount(), 99)) {
            mixed.addRow(i, train);
        }
        double reference = accuracy(mixed, TrainSpec.builder().optShuffle(false).optName("mixed"));
        double shuffled = accuracy(train, TrainSpec.builder().optName("sorted-shuffled"));
        double inOrder = accuracy(train, TrainSpec.builder().optShuffle(false)
                .optName("sorted-in-order"));
        double stratified = accuracy(train, TrainSpec.builder().optWorkers(2).optStratify(true)
                .optName("sorted-stratified"));
        assertTrue(reference >= GOOD, "a mixed table trains well: " + reference);
        assertTrue(shuffled >= GOOD && shuffled >= reference - 0.03,
                "sorted but shuffled " + shuffled + " vs mixed " + reference);
        assertTrue(stratified >= GOOD, "sorted, shuffled and stratified: " + stratified);
        // the checks above can fail: without shuffling, the sorted table trains badly
        assertTrue(inOrder < reference - 0.1, "sorted and not shuffled " + inOrder);
        double constant = Metrics.accuracy(new int[test.rowCount()], labels(test));
        assertTrue(constant < GOOD, "a constant predictor scores " + constant);
    }

    @Test
    void stratifyingARegressionTargetIsRefusedInOneLine() {
        Table d = RealTables.diabetes();
        DmlException e = assertThrows(DmlException.class,
                () -> TrainSpec.builder().setTable(d).setColumns(ColumnSelection
                        .allNumericExcept(d, "progression", LabelKind.REGRESSION))
                        .optStratify(true).build());
        assertEquals("optStratify balances classes, but the label 'progression' holds"
                + " regression targets.", e.getMessage().lines().findFirst().orElseThrow());
    }
}
