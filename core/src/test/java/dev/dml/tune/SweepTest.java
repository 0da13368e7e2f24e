package dev.dml.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.TrialMetric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The sweep's loop against fake jobs that report an accuracy per epoch from a thread. */
class SweepTest {

    /** Jobs whose accuracy after epoch e is {@code lr * e}; each epoch takes {@code ms}. */
    private static final class FakeJobs implements TrialLauncher {
        final int epochs;
        final long ms;
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();

        FakeJobs(int epochs, long ms) {
            this.epochs = epochs;
            this.ms = ms;
        }

        @Override
        public synchronized Running start(Trial trial, ProgressListener progress) {
            double lr = trial.options().get(TrainOptions.LR);
            CountDownLatch stop = new CountDownLatch(1);
            boolean[] early = new boolean[1];
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            Thread t = new Thread(() -> {
                try {
                    for (int e = 1; e <= epochs; e++) {
                        if (stop.await(ms, TimeUnit.MILLISECONDS)) {
                            early[0] = true;
                            return;
                        }
                        progress.onEpoch(new EpochMetrics(e, e * 10L, 10, 1f, ms / 1e3, 1,
                                1f, lr * e, Double.NaN));
                    }
                } catch (InterruptedException ignored) {
                    // ends
                } finally {
                    running.decrementAndGet();
                }
            });
            threads.add(t);
            t.start();
            return new Running() {
                @Override
                public boolean awaitEnd(Duration timeout) throws InterruptedException {
                    t.join(Math.max(1, timeout.toMillis()));
                    return !t.isAlive();
                }

                @Override
                public void stop() {
                    stop.countDown();
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public Object result() {
                    return "model-" + trial.id();
                }

                @Override
                public boolean stopped() {
                    return early[0];
                }
            };
        }
    }

    private static List<Trial> trials(double... lrs) {
        List<Trial> out = new ArrayList<>();
        for (int i = 0; i < lrs.length; i++) {
            out.add(new Trial(i + 1, OptionValues.empty().with(TrainOptions.LR, lrs[i]),
                    "lr=" + lrs[i]));
        }
        return out;
    }

    @Test
    void ashaStopsWeakTrialsAndTheBestIsTheStrongest() throws InterruptedException {
        // trials one at a time: a weak one meets the values recorded at rung 1 and stops
        // there; t06 (0.08) is above rung 1's cutoff 0.077 and rung 3's 0.23
        Sweep sweep = new Sweep("s", trials(0.05, 0.01, 0.09, 0.02, 0.03, 0.08),
                TrialMetric.VAL_ACCURACY, new Asha(9, 1, 3, true), 1, Double.NaN, Double.NaN);
        FakeJobs jobs = new FakeJobs(9, 20);
        sweep.run(jobs, () -> { });
        List<String> status = sweep.trials().stream().map(t -> t.status().word()).toList();
        assertEquals(List.of("done", "stopped early", "done", "stopped early", "stopped early",
                "done"), status);
        // the stop reaches the job from another thread, so a busy machine may let it end one
        // more epoch before it stops; it never reaches the next rung (3)
        assertTrue(sweep.trials().get(1).epochs() < 3, "epochs " + sweep.trials().get(1).epochs());
        assertEquals(9, sweep.trials().get(2).epochs());
        assertEquals("t03", sweep.best().orElseThrow().id());
        assertEquals("model-t03", sweep.best().orElseThrow().result());
        assertEquals(List.of("t03", "t06"), sweep.ranked().subList(0, 2).stream()
                .map(Trial::id).toList());
        // compute: three trials ran 9 epochs, three stopped after 1 (or 2): 30-33 of 54 epochs
        double spent = sweep.trials().stream().mapToDouble(Trial::workerSeconds).sum();
        assertTrue(spent < 0.65 * 6 * 9 * 0.020, "worker-seconds " + spent);
    }

    @Test
    void withoutASchedulerEveryTrialRunsToItsEnd() throws InterruptedException {
        Sweep sweep = new Sweep("s", trials(0.05, 0.01, 0.09), TrialMetric.VAL_ACCURACY, null, 2,
                Double.NaN, Double.NaN);
        FakeJobs jobs = new FakeJobs(3, 5);
        sweep.run(jobs, () -> { });
        assertTrue(sweep.trials().stream().allMatch(t -> t.status() == TrialStatus.DONE));
        assertEquals(2, jobs.mostAtOnce.get());
        assertNull(sweep.limit());
    }

    @Test
    void theDeadlineStopsTheRunningTrialsAndStartsNoMore() throws InterruptedException {
        Sweep sweep = new Sweep("s", trials(0.05, 0.01, 0.09, 0.02), TrialMetric.VAL_ACCURACY,
                null, 2, Double.NaN, 0.3);
        FakeJobs jobs = new FakeJobs(1000, 20);
        sweep.run(jobs, () -> { });
        assertTrue(sweep.limit().contains("{deadline} of 0 s was reached"), sweep.limit());
        assertEquals(List.of(TrialStatus.STOPPED, TrialStatus.STOPPED, TrialStatus.NOT_RUN,
                TrialStatus.NOT_RUN), sweep.trials().stream().map(Trial::status).toList());
        assertEquals(0, jobs.running.get());
    }

    @Test
    void anInterruptStopsEveryRunningTrial() throws Exception {
        Sweep sweep = new Sweep("s", trials(0.05, 0.01, 0.09), TrialMetric.VAL_ACCURACY, null, 2,
                Double.NaN, Double.NaN);
        FakeJobs jobs = new FakeJobs(100_000, 20);
        Throwable[] thrown = new Throwable[1];
        Thread cell = new Thread(() -> {
            try {
                sweep.run(jobs, () -> { });
            } catch (InterruptedException e) {
                thrown[0] = e;
            }
        });
        cell.start();
        long end = System.nanoTime() + 10_000_000_000L;
        while (jobs.running.get() < 2 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        cell.interrupt();
        cell.join(10_000);
        assertFalse(cell.isAlive());
        assertTrue(thrown[0] instanceof InterruptedException);
        assertEquals(0, jobs.running.get());
        assertEquals(List.of(TrialStatus.STOPPED, TrialStatus.STOPPED, TrialStatus.NOT_RUN),
                sweep.trials().stream().map(Trial::status).toList());
    }

    @Test
    void aTrialThatCannotStartFailsAndTheOthersGoOn() throws InterruptedException {
        Sweep sweep = new Sweep("s", trials(0.05, 0.01), TrialMetric.VAL_ACCURACY, null, 1,
                Double.NaN, Double.NaN);
        FakeJobs jobs = new FakeJobs(2, 5);
        sweep.run((trial, progress) -> {
            if (trial.number() == 1) {
                throw new dev.dml.DmlException("No room for 2 workers.", "Fewer workers.");
            }
            return jobs.start(trial, progress);
        }, () -> { });
        assertEquals(TrialStatus.FAILED, sweep.trials().get(0).status());
        assertEquals("No room for 2 workers.", sweep.trials().get(0).failure());
        assertEquals(TrialStatus.DONE, sweep.trials().get(1).status());
        assertThrows(IllegalArgumentException.class, () -> Sweep.value("auc", null));
    }
}
