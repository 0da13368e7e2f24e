package dev.dml.ray.train;

import dev.dml.options.StageBalance;
import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.staged.Partition;
import dev.dml.ray.train.staged.Schedules;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/** The staged strategies: their values, the spec checks, the schedules and the split. */
class StrategyTest {

    private static final Table FRAUD = SyntheticFraud.generate(1000, 1);

    private static TrainSpecBuilder mlp(Strategy s, int... hidden) {
        return TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, hidden).optEpochs(1).optBatchSize(64)
                .optStrategy(s);
    }

    private static DmlException fails(TrainSpecBuilder b) {
        return assertThrows(DmlException.class, b::build);
    }

    @Test
    void factoriesRejectBadValuesAtOnce() {
        assertEquals("A staged strategy needs at least 1 of stages, got 0.",
                assertThrows(DmlException.class, () -> Strategy.model(0)).what());
        assertEquals("A staged strategy needs at least 1 of microbatches, got 0.",
                assertThrows(DmlException.class, () -> Strategy.pipeline(2, 0,
                        PipelineSchedule.GPIPE)).what());
        assertEquals("A staged strategy needs at least 1 of replicas, got -1.",
                assertThrows(DmlException.class, () -> Strategy.hybrid(-1, 2, 2)).what());
        assertTrue(assertThrows(DmlException.class, () -> Strategy.modelLayers(2, 0)).hint()
                .contains("positive layer counts"));
    }

    @Test
    void buildChecksTheStrategyAgainstModelAndBatch() {
        assertEquals("The model has 3 layers, too few for 4 stages.",
                fails(mlp(Strategy.model(4), 32, 16)).what());
        assertEquals("Set optBatchSize to a multiple of 5, such as 60 or 65, or change the"
                + " micro-batches of optStrategy.", fails(mlp(Strategy.pipeline(2, 5,
                        PipelineSchedule.GPIPE), 32)).hint());
        assertEquals("Leave optWorkers out, or set it to 4.",
                fails(mlp(Strategy.hybrid(2, 2, 2), 32).optWorkers(3)).hint());
        assertEquals("The split [1, 1] names 2 layers; the model has 3.",
                fails(mlp(Strategy.modelLayers(1, 1), 32, 16)).what());
        // staged jobs validate and checkpoint like any other (StagedLocalTest runs them)
        assertEquals(0.2, mlp(Strategy.model(2), 32).optValidationFraction(0.2).build()
                .validationFraction());
    }

    @Test
    void aStagedSpecCountsItsActorsAndKeepsTheStrategy() {
        Strategy.Staged h = Strategy.hybrid(2, 3, 4).withBalance(StageBalance.TIME);
        TrainSpec spec = mlp(h, 32, 16).optWorkers(6).build();
        assertEquals(6, spec.workers());
        assertSame(h, spec.strategy());
        assertEquals(1000 / 2 / 64, spec.stepsPerEpoch(), "one shard per replica");
        assertSame(Strategy.data(), mlp(Strategy.data(), 8).build().strategy());
        assertEquals("hybrid{replicas=2, stages=3, microbatches=4, ONE_F_ONE_B, TIME}",
                h.toString());
    }

    @Test
    void strategiesSurviveJavaSerialization() throws Exception {
        Strategy.Staged s = Strategy.modelLayers(2, 1);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(s);
            out.writeObject(Strategy.data());
        }
        try (ObjectInputStream in = new ObjectInputStream(
                new ByteArrayInputStream(bytes.toByteArray()))) {
            Strategy.Staged back = (Strategy.Staged) in.readObject();
            assertArrayEquals(new int[] {2, 1}, back.layersPerStage().orElseThrow());
            assertSame(Strategy.data(), in.readObject());
        }
    }

    @Test
    void schedulesRunEveryMicroBatchOnceEachWay() {
        // stage 0 of 3 with 4 micro-batches: 2 warm-up forwards, then 1F1B, then the rest
        assertArrayEquals(new int[] {0, 1, 2, -1, 3, -2, -3, -4}, Schedules.oneFOneB(0, 3, 4));
        assertArrayEquals(new int[] {0, 1, 2, 3, -4, -3, -2, -1}, Schedules.gpipe(1, 3, 4));
        assertArrayEquals(new int[] {0, 1, 2, 3}, Schedules.oneFOneB(2, 3, 4));
        assertArrayEquals(new int[] {0, 1, -1, -2}, Schedules.oneFOneB(0, 2, 2));
    }

    @Test
    void partitionMinimisesTheCostliestStage() {
        assertArrayEquals(new int[] {1, 2}, Partition.balance(new double[] {512, 136, 18}, 2));
        assertArrayEquals(new int[] {2, 1, 1},
                Partition.balance(new double[] {1, 1, 2, 2}, 3));
        assertArrayEquals(new int[] {1, 1, 1, 1}, Partition.balance(new double[] {5, 1, 1, 5},
                4));
        assertThrows(DmlException.class, () -> Partition.balance(new double[] {1}, 2));
    }
}
