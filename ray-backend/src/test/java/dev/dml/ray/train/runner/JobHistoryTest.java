package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A long job's kept steps stay bounded (issue 26, memory over time: the S1 soak's driver kept
 * a million steps in an hour), the latest all kept and the earlier ones evenly spaced, and a
 * recovery still recounts its epoch.
 */
class JobHistoryTest {

    /** 100 steps an epoch, as the soak's job; the loss is the step's number. */
    private static final int EPOCH = 100;

    private static StepMetrics step(long n) {
        return new StepMetrics((int) ((n - 1) / EPOCH), n, n, 8, 1, 1, 0, 0, 0, List.of(), 0);
    }

    private static JobHistory run(long steps) {
        JobHistory history = new JobHistory(8, EPOCH);
        for (long s = 1; s <= steps; s++) {
            history.onStep(step(s));
            if (s % EPOCH == 0) {
                history.onEpoch(history.endEpoch((int) (s / EPOCH), s, null));
            }
        }
        return history;
    }

    @Test
    void aLongJobKeepsItsLatestStepsAndAnEvenSampleOfTheEarlierOnes() {
        long total = 200_000;
        List<StepMetrics> kept = run(total).steps();
        assertTrue(kept.size() <= JobHistory.RECENT + JobHistory.EARLIER, "" + kept.size());
        List<StepMetrics> latest = kept.subList(kept.size() - JobHistory.RECENT, kept.size());
        assertEquals(total - JobHistory.RECENT + 1, latest.get(0).step());
        assertEquals(total, latest.get(latest.size() - 1).step());
        List<StepMetrics> earlier = kept.subList(0, kept.size() - JobHistory.RECENT);
        long stride = earlier.get(1).step() - earlier.get(0).step();
        assertEquals(32, stride, "190,000 earlier steps in at most 10,000 rows: every 32nd");
        for (int i = 1; i < earlier.size(); i++) {
            assertEquals(stride, earlier.get(i).step() - earlier.get(i - 1).step());
        }
        assertTrue(earlier.size() > JobHistory.EARLIER / 2, "" + earlier.size());
        // a short job keeps every step, as before
        assertEquals(5_000, run(5_000).steps().size());
    }

    @Test
    void aRecoveryFarBackRecountsItsEpochFromTheSample() {
        JobHistory history = run(50_050);
        // back to step 20,050, among the sampled steps: epoch 201's first 50 steps ran
        history.onRecovery(new Recovery(50_050, 20_050, 30_000, 1, "node lost", "checkpoint",
                false, List.of()));
        assertEquals(200, history.epochs().size());
        for (long s = 20_051; s <= 20_100; s++) {
            history.onStep(step(s));
        }
        EpochMetrics e = history.endEpoch(201, 20_100, null);
        assertEquals(100, e.stepsRun(), "50 recounted from the sample, 50 run again");
        // the mean loss of steps 20,001-20,100 is 20,050.5; the sample's stands for the first
        assertEquals(20_050.5, e.trainLoss(), 20);
        // the sample before the restored step (every 8th), then the 50 steps that ran again
        assertEquals(20_048, history.steps().get(history.steps().size() - 51).step());
    }
}
