package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.cost.Limits;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.JobStarted;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.train.FakeDriverContext;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The driver's listeners hear the job's events as the kernel does, through {@link JobEvents}. */
class DriverListenersTest {

    private final FakeDriverContext kernel = new FakeDriverContext();
    private final JobEvents events = new JobEvents(kernel);

    private static StepMetrics step(long n, float loss) {
        return new StepMetrics((int) ((n - 1) / 4), n, loss, 8, 1, 1, 0, 0, 0, List.of(), 0);
    }

    private static EpochMetrics epoch(int n, float validationLoss) {
        return new EpochMetrics(n, 4L * n, 4, 1f, 1, 1, validationLoss, 0.5, Double.NaN);
    }

    private static Recovery resumedFrom(long step, List<WorkerInfo> workers) {
        return new Recovery(9, step, 9 - step, 0.1, "worker 1 lost", "a peer's snapshot", false,
                workers);
    }

    @Test
    void aRecoveryDropsTheStepsAndEpochsThatRunAgainAndRecountsTheEpochInProgress() {
        JobHistory history = events.add(new JobHistory(8, 4));
        for (int s = 1; s <= 9; s++) {
            events.emit(step(s, s));
            if (s == 4 || s == 8) {
                events.emit(history.endEpoch(s / 4, s, null));
            }
        }
        events.emit(resumedFrom(6, List.of()));
        assertEquals(6, history.steps().size());
        assertEquals(List.of(1), history.epochs().stream().map(EpochMetrics::epoch).toList());
        events.emit(step(7, 7));
        events.emit(step(8, 8));
        EpochMetrics second = history.endEpoch(2, 8, null);
        assertEquals(4, second.stepsRun(), "steps 5-8, each counted once");
        assertEquals((5 + 6 + 7 + 8) / 4f, second.trainLoss(), 1e-6);
    }

    @Test
    void earlyStoppingHearsEpochsAndSaysSoAfterTheEpochThatEndsIt() {
        JobHistory history = events.add(new JobHistory(8, 4));
        float[][] params = {{1f}};
        EarlyStopping early = events.add(new EarlyStopping(2, history, () -> params[0].clone(),
                events::emit));
        float[] losses = {0.9f, 0.5f, 0.6f, 0.7f};
        for (int e = 1; e <= losses.length && !events.finishedEarly(); e++) {
            params[0] = new float[] {e};
            events.emit(epoch(e, losses[e - 1]));
        }
        assertTrue(events.finishedEarly());
        assertEquals(4, early.stoppedAfter());
        assertEquals(2, early.bestEpoch());
        assertArrayEquals(new float[] {2f}, early.kept(new float[] {4f}));
        Object last = kernel.events.get(kernel.events.size() - 1);
        assertInstanceOf(JobNotice.class, last, "the notice follows its epoch");
        assertTrue(((JobNotice) last).template().startsWith("{early-stop}"), last.toString());
        assertInstanceOf(EpochMetrics.class, kernel.events.get(kernel.events.size() - 2));
    }

    @Test
    void theCostMeterPricesTheWorkersItHearsOfAfterAStartAResizeAndARecovery() {
        List<WorkerInfo> one = List.of(new WorkerInfo(0, 1, 10, "h", "a", "10.0.0.1"));
        List<WorkerInfo> three = List.of(new WorkerInfo(0, 3, 10, "h", "a", "10.0.0.1"),
                new WorkerInfo(1, 3, 11, "h", "b", "10.0.0.2"),
                new WorkerInfo(2, 3, 12, "h", "c", "10.0.0.3"));
        events.add(new CostListener(new Limits(Double.NaN, Double.NaN),
                w -> new JobRate(w.size(), true, false, w.size() + " nodes", ""), events::emit,
                System::nanoTime));
        events.emit(new JobStarted(one));
        assertEquals(1, lastCost().usdPerHour());
        events.emit(new Resize(5, 1, 3, "grew", three));
        assertEquals(3, lastCost().usdPerHour());
        assertEquals(5, lastCost().step());
        events.emit(resumedFrom(4, one));
        assertEquals(1, lastCost().usdPerHour());
        assertEquals(4, lastCost().step());
        assertFalse(events.finishedEarly());
    }

    private JobCost lastCost() {
        for (int i = kernel.events.size() - 1; i >= 0; i--) {
            if (kernel.events.get(i) instanceof JobCost c) {
                return c;
            }
        }
        throw new AssertionError("no cost event");
    }
}
