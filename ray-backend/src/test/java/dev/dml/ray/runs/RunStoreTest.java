package dev.dml.ray.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.dml.DmlException;
import dev.dml.events.StepMetrics;
import dev.dml.ray.train.TrainSpec;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/** A run whose process dies while it runs reads back as lost, with what it had recorded. */
class RunStoreTest {

    @Test
    void aRunLeftRunningByAKilledProcessReadsAsLostWithWhatItHad(@TempDir Path dir)
            throws Exception {
        Path err = dir.resolve("child.log");
        Path store = dir.resolve("store");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-cp", System.getProperty("java.class.path"),
                RecordingChild.class.getName(), store.toString())
                .redirectError(err.toFile()).start();
        String runId;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(
                    child.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (java.io.IOException e) {
                    return e.toString();
                }
            }).get(90, TimeUnit.SECONDS);
            assertTrue(line != null && line.startsWith("recorded "),
                    "the child said " + line + ":\n" + Files.readString(err));
            runId = line.substring("recorded ".length());
            try (Runs runs = Runs.open(store)) {
                assertEquals("running", runs.table().stringColumn("status").get(0),
                        "while its process lives");
            }
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, nothing closed
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child did not die");
        }

        try (Runs runs = Runs.open(store)) {
            Table all = runs.table();
            assertEquals(1, all.rowCount());
            assertEquals(runId, all.stringColumn("id").get(0));
            assertEquals("lost", all.stringColumn("status").get(0));
            assertTrue(all.instantColumn("ended").isMissing(0));
            assertEquals(RecordingChild.STEPS, all.longColumn("steps").get(0));
            Table steps = runs.metrics(runId);
            assertEquals(RecordingChild.STEPS, steps.rowCount());
            for (int i = 0; i < RecordingChild.STEPS; i++) {
                assertEquals(RecordingChild.loss(i + 1), steps.doubleColumn("loss").get(i), 0.0);
                assertEquals(100.0 * (i + 1), steps.doubleColumn("examples_per_second").get(i));
                assertTrue(steps.doubleColumn("learning_rate").isMissing(i));
            }
            assertEquals(1, runs.epochMetrics(runId).rowCount());
            assertTrue(runs.epochMetrics(runId).doubleColumn("validation_loss").isMissing(0));

            // the event file keeps every record written before the kill
            JsonObject read = TensorBoard.read(runs.store().folderOf(runId)).getAsJsonObject();
            JsonArray loss = read.getAsJsonObject("scalars").getAsJsonArray(RunRecorder.LOSS);
            assertEquals(RecordingChild.STEPS, loss.size());
            for (int i = 0; i < RecordingChild.STEPS; i++) {
                assertEquals(RecordingChild.loss(i + 1),
                        (float) loss.get(i).getAsJsonArray().get(1).getAsDouble());
            }
            assertEquals(3.0, read.getAsJsonObject("hparams").get("epochs").getAsDouble());
            assertTrue(read.get("status").isJsonNull(), "no end was written: " + read);
        }
    }

    @Test
    void aRunningRunReadsAsLostWhenItsPidNowBelongsToAnotherProcess() {
        ProcessHandle self = ProcessHandle.current();
        long started = self.info().startInstant().orElseThrow().toEpochMilli();
        long now = System.currentTimeMillis();
        String here = RunStore.localHost();
        assertEquals(RunStatus.RUNNING, RunStore.current("running", here, self.pid(), started,
                now, now));
        assertEquals(RunStatus.LOST, RunStore.current("running", here, self.pid(),
                started - 60_000, now, now));
        assertEquals(RunStatus.FINISHED, RunStore.current("finished", here, Long.MAX_VALUE, 0,
                0, now));
        // on another host only silence tells
        long silent = RunStore.SILENT_LIMIT.toMillis();
        assertEquals(RunStatus.RUNNING, RunStore.current("running", "elsewhere.invalid", 1, 0,
                now - silent + 60_000, now));
        assertEquals(RunStatus.LOST, RunStore.current("running", "elsewhere.invalid", 1, 0,
                now - silent - 1, now));
    }

    @Test
    void aFailedJobIsRecordedAsFailedWithItsError(@TempDir Path dir) throws Exception {
        try (Runs runs = Runs.open(dir)) {
            TrainSpec spec = RecordingChild.spec();
            RunRecorder run = RunRecorder.start(runs.store(), spec);
            run.onStep(new StepMetrics(1, 1, 0.75f, 32, 10, 1, 0, 0, 0, List.of(),
                    System.currentTimeMillis()));
            run.onFailed(new DmlException("Worker 0 on host-a (pid 7) died.", "Start again."));
            Table all = runs.table();
            assertEquals("failed", all.stringColumn("status").get(0));
            assertEquals("Worker 0 on host-a (pid 7) died.", all.stringColumn("error").get(0));
            assertEquals(0.75, all.doubleColumn("final_loss").get(0));
            assertEquals(DataFingerprint.of(spec.table()), all.stringColumn("data_hash").get(0));
            assertTrue(all.doubleColumn("wall_seconds").get(0) >= 0);
            JsonObject read = TensorBoard.read(runs.store().folderOf(run.runId()))
                    .getAsJsonObject();
            assertEquals("STATUS_FAILURE", read.get("status").getAsString());
        }
    }

    @Test
    void anUnknownRunIdSaysWhereToTakeOneFrom(@TempDir Path dir) {
        try (Runs runs = Runs.open(dir)) {
            DmlException e = org.junit.jupiter.api.Assertions.assertThrows(DmlException.class,
                    () -> runs.metrics("nope"));
            assertEquals("No run 'nope' in the run store " + dir + ".", e.what());
            assertEquals("Take an id from Runs.table().", e.hint());
        }
    }
}
