package dev.dml.ray.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobEvent;
import dev.dml.events.ProgressListener;
import dev.dml.events.StepMetrics;
import dev.dml.ray.train.TrainingListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run record of a detached job: the kernel starts the run and hands it over, the driver
 * takes it over and records it, a follower (a later kernel's {@code %dml attach}) replays and
 * follows it to its end, and {@code %dml stop} asks for a stop through the run's folder.
 */
class DetachedRunsTest {

    /** What a follower hands the live plot, in order. */
    private static final class Seen implements ProgressListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void deliver(JobEvent event) {
            events.add(event instanceof StepMetrics s ? "step " + s.step() + " loss " + s.loss()
                    : "epoch " + ((EpochMetrics) event).epoch());
        }
    }

    private static StepMetrics step(int epoch, long step) {
        return new StepMetrics(epoch, step, 1f / step, 32, 100, 1, 0, 0, 0, List.of(),
                System.currentTimeMillis());
    }

    private static EpochMetrics epoch(int epoch, long steps) {
        return new EpochMetrics(epoch, steps, 2, 0.4f, 1.0, 64, 0.5f, 0.75, Double.NaN);
    }

    /** A run started here and handed over, as the kernel does before its driver takes it. */
    private static String handedOver(Path dir) {
        try (RunStore store = RunStore.open(dir)) {
            RunRecorder kernel = RunRecorder.start(store, RecordingChild.spec());
            kernel.handOver();
            return kernel.runId();
        }
    }

    @Test
    void theDriverRecordsTheRunAndAFollowerReplaysAndFollowsItToItsEnd(@TempDir Path dir)
            throws Exception {
        String id = handedOver(dir);
        DetachedRuns.DriverRecord record = new DetachedRuns.DriverRecord(dir, id);
        TrainingListener driver = record.takeOver();
        driver.onStep(step(1, 1));
        driver.onStep(step(1, 2));
        driver.onEpoch(epoch(1, 2));
        ((RunRecorder) driver).flush();

        Seen seen = new Seen();
        CompletableFuture<RunStatus> end;
        try (RunFollower follower = RunFollower.open(dir, id)) {
            assertEquals("killed", follower.name());
            assertEquals(3, follower.epochs());
            end = CompletableFuture.supplyAsync(() -> {
                try {
                    return follower.follow(seen, Duration.ofMillis(50));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(500);
            assertEquals(List.of("step 1 loss 1.0", "step 2 loss 0.5", "epoch 1"), seen.events,
                    "the record so far is replayed");
            assertFalse(end.isDone(), "the run still runs");
            driver.onStep(step(2, 3));
            driver.onFailed(new DmlException("A worker died.", "Start it again."));
            assertEquals(RunStatus.FAILED, end.get(30, TimeUnit.SECONDS));
            assertEquals("A worker died.", follower.error());
        }
        assertEquals("step 3 loss 0.33333334", seen.events.get(3), "new steps are followed");
        assertEquals(4, seen.events.size());
    }

    @Test
    void aStopIsAskedThroughTheRunsFolderOnlyWhileTheRunRuns(@TempDir Path dir) {
        String id = handedOver(dir);
        DetachedRuns.DriverRecord record = new DetachedRuns.DriverRecord(dir, id);
        TrainingListener driver = record.takeOver();
        assertFalse(record.stopRequested());
        assertEquals(RunStatus.RUNNING, DetachedRuns.stop(dir, id));
        assertTrue(record.stopRequested(), "the driver polls this each second");
        driver.onFailed(new DmlException("stopped by hand", "none"));
        assertEquals(RunStatus.FAILED, DetachedRuns.stop(dir, id));
    }

    @Test
    void anUnknownRunIsOneLineAndATakenRunCannotBeTakenTwice(@TempDir Path dir) {
        DmlException e = assertThrows(DmlException.class, () -> DetachedRuns.stop(dir, "nope"));
        assertTrue(e.what().startsWith("No run 'nope' in the run store"), e.what());
        assertEquals("Take a run id from %dml runs (Runs.open().table() in Java).", e.hint());
        assertThrows(DmlException.class, () -> RunFollower.open(dir, "nope"));

        String id = handedOver(dir);
        TrainingListener driver = new DetachedRuns.DriverRecord(dir, id).takeOver();
        driver.onFailed(new DmlException("done", "none"));
        DmlException twice = assertThrows(DmlException.class,
                () -> new DetachedRuns.DriverRecord(dir, id).takeOver());
        assertTrue(twice.what().contains("has no running run " + id), twice.what());
    }

    @Test
    void detachOnTheEmbeddedClusterIsRefusedInTheWordsOfEachSurface() {
        DmlException e = DetachedRuns.embeddedRefused();
        assertEquals("--detach needs a cluster that outlives this kernel, and the embedded one"
                + " stops with it.", Vocabulary.NOTEBOOK.render(e.whatTemplate()));
        assertTrue(Vocabulary.NOTEBOOK.render(e.hintTemplate()).contains("--cluster HOST:PORT"),
                e.hintTemplate());
        assertTrue(Vocabulary.JAVA.render(e.whatTemplate())
                .startsWith("DetachedRuns.start(spec, cluster) needs"), e.whatTemplate());
        assertTrue(Vocabulary.JAVA.render(e.hintTemplate()).contains("optClusterAddress"),
                e.hintTemplate());
    }
}
