package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * Shuffling on a real table sorted by its label: 6,000 Fashion-MNIST training images, all
 * T-shirts first and all ankle boots last. In the table's order every batch holds one class, and
 * the model ends each epoch pulled towards the last classes it saw; shuffled, it learns as on a
 * table whose rows were mixed. Scored on 2,000 test images.
 */
@ExtendWith(LocalRayExtension.class)
class ShuffleTrainingTest {

    /**
     * Held-out accuracy a good run reaches: it measured 0.78-0.83 for mixed or shuffled rows,
     * 0.47-0.63 for the sorted rows in their order, and a constant class scores about 0.1.
     */
    private static final double GOOD = FashionMnistSlices.GOOD;

    private static double accuracy(Table rows, TrainSpecBuilder b) {
        TrainSpec spec = b.setTable(rows).setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.LOGISTIC_REGRESSION).optEpochs(2).optBatchSize(64)
                .optOptimizer(OptimizerSpec.adam(1e-3f)).optCpusPerWorker(0).build();
        double acc = FashionMnistSlices.accuracy(RealTableJobs.run(spec));
        System.out.printf("%s: held-out accuracy %.3f%n", spec.name(), acc);
        return acc;
    }

    @Test
    void aLabelSortedTableTrainsToTheAccuracyOfAShuffledOne() {
        Table train = FashionMnistSlices.train().sortAscendingOn(FashionMnist.LABEL);
        assertEquals(0, FashionMnistSlices.labels(train)[0]);
        assertEquals(9, FashionMnistSlices.labels(train)[train.rowCount() - 1], "sorted by label");
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
        double constant = FashionMnistSlices.constantAccuracy();
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
