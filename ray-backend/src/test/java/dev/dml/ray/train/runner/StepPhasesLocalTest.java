package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import dev.dml.events.StepPhase;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.FakeDriverContext;
import dev.dml.ray.train.result.TrainResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * Each worker's report says where its steps spent their time ({@link StepPhase}), as a user
 * reads it from {@link StepMetrics#workers()}: every phase a step runs is timed, the phases fit
 * in the step's compute time, and a lone worker copies no gradients.
 */
@ExtendWith(LocalRayExtension.class)
class StepPhasesLocalTest {

    @Test
    void twoWorkersReportEachPhaseWithinTheirCompute() {
        Table t = SyntheticFraud.generate(2 * 32 * 4, 7);
        TrainResult r = TrainLocalTest.run(TrainLocalTest.fraudJob(t, OptimizerSpec.adam(1e-3f),
                2, 32).optWorkers(2).optReportEvery(1).optName("phases2").build(),
                new FakeDriverContext());
        for (StepMetrics s : r.steps()) {
            assertEquals(2, s.workers().size());
            for (ProcessSample w : s.workers()) {
                double sum = 0;
                for (StepPhase p : StepPhase.values()) {
                    double ms = w.stepPhaseMillis(p);
                    assertTrue(ms > 0, p + " took " + ms + " ms in step " + s.step());
                    sum += ms;
                }
                // one step a call: a rank's phases lie inside its compute, and the step's
                // compute is the slowest rank's
                assertTrue(sum <= s.computeMillis() + 0.05, "phases " + sum + " ms, compute "
                        + s.computeMillis() + " ms in step " + s.step());
            }
        }
    }

    @Test
    void aLoneWorkerCopiesNoGradients() {
        Table t = SyntheticFraud.generate(32 * 4, 7);
        TrainResult r = TrainLocalTest.run(TrainLocalTest.fraudJob(t, OptimizerSpec.adam(1e-3f),
                1, 32).optWorkers(1).optName("phases1").build(), new FakeDriverContext());
        ProcessSample w = r.steps().get(r.steps().size() - 1).workers().get(0);
        assertEquals(0, w.stepPhaseMillis(StepPhase.COPIES));
        assertTrue(w.stepPhaseMillis(StepPhase.FORWARD) > 0);
        assertTrue(w.stepPhaseMillis(StepPhase.OPTIMIZER) > 0);
    }
}
