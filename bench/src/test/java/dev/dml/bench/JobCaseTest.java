package dev.dml.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import org.junit.jupiter.api.Test;

/** What the scaling benchmarks (P2, P8, P10, M1) count from a job's spec. */
class JobCaseTest {

    private static final int BATCH = 64;
    private static final int STEPS = 10;
    private static final int EPOCHS = 4;

    private static TrainSpec spec(int workers) {
        return TrainSpec.builder()
                .setTable(SyntheticFraud.generate(workers * STEPS * BATCH, 1))
                .setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, new int[] {8})
                .optEpochs(EPOCHS)
                .optBatchSize(BATCH)
                .optWorkers(workers)
                .build();
    }

    @Test
    void aDataParallelCaseCountsEveryWorkersBatchesOverTheEpochsAfterTheFirst() {
        JobCase two = new JobCase("two", "2 workers", spec(2));
        assertEquals(STEPS, two.spec.stepsPerEpoch());
        // The counts P2 and P10 wrote out before JobCase derived them.
        assertEquals((EPOCHS - 1) * STEPS, two.steadySteps);
        assertEquals((long) (EPOCHS - 1) * STEPS * BATCH * 2, two.examples);
        assertEquals((long) (EPOCHS - 1) * STEPS * BATCH, new JobCase("one", "1 worker",
                spec(1)).examples);
    }

    @Test
    void aCaseWithExamplesOfItsOwnKeepsThemAndStillCountsItsSteps() {
        JobCase pipeline = new JobCase("p", "a pipeline", spec(2), 123);
        assertEquals(123, pipeline.examples);
        assertEquals((EPOCHS - 1) * STEPS, pipeline.steadySteps);
    }

    @Test
    void aJobThatSplitsIntoOtherStepsPerEpochIsRefused() {
        JobCase.requireStepsPerEpoch("two", spec(2), STEPS);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> JobCase.requireStepsPerEpoch("two", spec(2), STEPS + 1));
        assertEquals("two has 10 steps per epoch, not 11.", e.getMessage());
    }

    @Test
    void aKeptRunHoldsItsStepSplitDriverTimeAndStartUp() {
        JobCase two = new JobCase("two", "2 workers", spec(2));
        MlpJobs.JobRun j = new MlpJobs.JobRun();
        j.wallSeconds = 10;
        j.firstEpochSeconds = 2;
        j.steadySeconds = 6; // 30 steps: 200 ms a step
        j.stepComputeMs = 150;
        j.stepCommMs = 40;
        j.stepWorkerMs = 190;
        j.allReduceBytes = 1234;
        two.keepRun(j);
        assertEquals(List.of(150.0), two.compute);
        assertEquals(List.of(40.0), two.comm);
        assertEquals(1234, two.allReduceBytes);
        assertEquals(1, two.driverMs.size());
        assertEquals(10.0, two.driverMs.get(0), 1e-9);
        assertEquals(List.of(2.0), two.startup);
        assertEquals(List.of(2.0), two.firstEpoch);
    }
}
