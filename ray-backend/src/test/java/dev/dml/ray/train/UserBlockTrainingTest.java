package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import dev.dml.DmlException;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.BlockFactory;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.UserBlock;
import dev.dml.ray.train.result.TrainResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * A user's own DJL block ({@code --block VAR}, {@code setBlock}) trained on 2 workers in Ray's
 * LOCAL mode on the breast cancer table, and the ways it is refused in one line.
 */
@ExtendWith(LocalRayExtension.class)
class UserBlockTrainingTest {

    /** A two-layer network, as a user would write it in a cell. */
    static final class TwoLayers implements BlockFactory {
        private static final long serialVersionUID = 1L;
        private final int hidden;

        TwoLayers(int hidden) {
            this.hidden = hidden;
        }

        @Override
        public Block newBlock(int inputs, int outputs) {
            return new SequentialBlock().add(Linear.builder().setUnits(hidden).build())
                    .add(Activation.reluBlock()).add(Linear.builder().setUnits(outputs).build());
        }
    }

    private static Table table;
    private static TrainResult result;

    @BeforeAll
    static void trainTheUsersBlock() throws IOException {
        table = RealTables.breastCancer();
        result = RealTableJobs.run(builder().setBlock("net", new TwoLayers(16)).build());
    }

    private static TrainSpecBuilder builder() {
        return TrainSpec.builder().setTable(table)
                .setColumns(ColumnSelection.allNumericExcept(table, "diagnosis",
                        LabelKind.CLASSES)).optEpochs(10).optBatchSize(16).optWorkers(2)
                .optLearningRate(0.01f).optValidationFraction(0.25).optCpusPerWorker(0)
                .optName("own-block");
    }

    @Test
    void theBlockTrainsOnEveryWorkerAndBeatsTheMajority() {
        assertEquals(ModelSpec.Family.CUSTOM, result.model().family());
        assertEquals(2, result.workers().size());
        var epochs = result.epochs();
        double acc = epochs.get(epochs.size() - 1).validationAccuracy();
        System.out.printf("own block on breast cancer: validation accuracy %.3f%n", acc);
        // benign is 357 of 569 rows, 0.63; a linear model gets about 0.95
        assertTrue(acc >= 0.9, "validation accuracy " + acc);
    }

    @Test
    void aBlockOfTheWrongWidthIsRefusedInOneLine() {
        BlockFactory three = (in, out) -> new SequentialBlock()
                .add(Linear.builder().setUnits(3).build());
        DmlException e = assertThrows(DmlException.class,
                () -> builder().setBlock("wide", three).build());
        assertTrue(e.what().startsWith("The block wide (") && e.what().endsWith(") returns"
                + " [2, 3] for a batch [B, 30], and the label needs [B, 2] (2 class scores)."),
                e.what());
    }

    @Test
    void aFactoryHoldingABlockIsRefusedInOneLine() {
        Block built = new SequentialBlock();
        BlockFactory holding = (in, out) -> built;
        DmlException e = assertThrows(DmlException.class,
                () -> UserBlock.of("held", holding, Map.of()));
        assertTrue(e.what().startsWith("The block factory 'held' ("), e.what());
        assertTrue(e.what().contains("cannot be sent to the workers"), e.what());
    }

    @Test
    void theModelOptionsAreRefusedBesideABlock() {
        DmlException e = assertThrows(DmlException.class, () -> builder()
                .setBlock("net", new TwoLayers(8)).opt(dev.dml.options.TrainOptions.HIDDEN,
                        java.util.List.of(8)).build());
        assertEquals("setBlock trains your own block, and setModel(family, hidden...) sizes a"
                + " built-in one.", e.what());
    }

    @Test
    void savingRefusesInOneLine(@TempDir Path dir) {
        DmlException e = assertThrows(DmlException.class, () -> result.save(dir));
        assertTrue(e.what().startsWith("This model is your own block net ("), e.what());
    }
}
