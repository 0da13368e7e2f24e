package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.ProgressListener;
import dev.dml.events.WorkerInfo;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.options.OptionValues;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An interrupt that arrives while a job is still starting (the embedded cluster takes seconds
 * to open) waits for the start, stops the job it started, and ends the cell with one line: no
 * job runs on unseen.
 */
class StartInterruptTest {

    @Test
    void anInterruptDuringTheStartStopsTheJobThatStarted() throws Exception {
        CountDownLatch starting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stopped = new AtomicBoolean();
        PreparedJob prepared = new SlowStart(starting, release, stopped);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread cell = new Thread(() -> {
            try {
                TrainCommand.startStoppably(prepared, new LiveDashboard("t", 1, 1), null);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        cell.start();
        assertTrue(starting.await(10, TimeUnit.SECONDS));
        cell.interrupt(); // JupyterLab's stop button, while the cluster still opens
        Thread.sleep(100);
        assertTrue(cell.isAlive(), "the cell gave up on a start that was under way");
        release.countDown();
        cell.join(10_000);
        assertTrue(stopped.get(), "the job that started runs on");
        assertTrue(thrown.get() instanceof DmlException, String.valueOf(thrown.get()));
        assertEquals("Training was interrupted and stopped while its job started; no worker"
                + " runs.", ((DmlException) thrown.get()).what());
    }

    /** A job whose start blocks until released, and which records its stop. */
    private record SlowStart(CountDownLatch starting, CountDownLatch release,
            AtomicBoolean stopped) implements PreparedJob {

        @Override
        public RunningJob start(ProgressListener progress) {
            starting.countDown();
            boolean done = false;
            while (!done) {
                try {
                    done = release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    // a start in the backend does not stop half-way either
                }
            }
            return new RunningJob() {
                @Override
                public String id() {
                    return "t-1";
                }

                @Override
                public List<WorkerInfo> workers() {
                    return List.of();
                }

                @Override
                public boolean awaitEnd(Duration timeout) {
                    return stopped.get();
                }

                @Override
                public JobOutcome outcome() {
                    return new JobOutcome(true, 0, null);
                }

                @Override
                public void stop() {
                    stopped.set(true);
                }
            };
        }

        @Override
        public String name() {
            return "t";
        }

        @Override
        public int epochs() {
            return 1;
        }

        @Override
        public long totalSteps() {
            return 1;
        }

        @Override
        public String description() {
            return "a slow start";
        }

        @Override
        public TrainRequest request() {
            return new TrainRequest("t", OptionValues.empty());
        }
    }
}
