package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.DmlException;
import dev.dml.events.JobEvent;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.runs.RunRecorder;
import dev.dml.ray.runs.Runs;
import dev.dml.ray.runs.TensorBoard;
import dev.dml.ray.train.result.RunFolders;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import dev.dml.ray.train.runner.TrainLocalTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * A real one-worker job (Ray's in-process LOCAL mode, as {@link ModelSaveTest} runs it) recorded
 * by a {@link RunRecorder}: the run store holds its settings, data and every metric, and the
 * real {@code tensorboard} reads every scalar and the settings back from its event files, both
 * through its {@code EventAccumulator} and from its server over HTTP.
 */
@ExtendWith(LocalRayExtension.class)
class RunRecordingTest {

    private static Path folder;
    private static Runs runs;
    private static String runId;
    private static TrainResult result;
    private static FakeDriverContext context;

    @BeforeAll
    static void recordAJob() throws IOException {
        folder = Files.createTempDirectory("dml-runs");
        runs = Runs.open(folder);
        Table t = SyntheticFraud.generate(512, 11);
        t.setName("fraud");
        TrainSpec spec = TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(t)).optOptimizer(OptimizerSpec.adam(1e-2f))
                .optEpochs(2).optBatchSize(32).optWorkers(1).optCpusPerWorker(0)
                .optValidationFraction(0.25).optReportEvery(1).optName("recorded").build();
        RunRecorder recorder = RunRecorder.start(runs.store(), spec);
        runId = recorder.runId();
        long t0 = System.nanoTime();
        // the events reach the recorder as TrainJob dispatches them to the spec's listeners
        context = new FakeDriverContext(e -> recorder.deliver((JobEvent) e));
        result = JobRunner.of(spec.toBuilder().addListener(recorder).build(), runId,
                Duration.ofMinutes(2)).run(context)
                .withWallSeconds((System.nanoTime() - t0) / 1e9);
        recorder.onEnd(result);
    }

    @AfterAll
    static void cleanUp() throws IOException {
        if (runs != null) {
            runs.close();
        }
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void theStoreHoldsTheFinishedRunWithItsSettingsDataAndEveryMetric() {
        Table all = runs.table();
        assertEquals(1, all.rowCount());
        assertEquals(runId, all.stringColumn("id").get(0));
        assertEquals("recorded", all.stringColumn("name").get(0));
        assertEquals("finished", all.stringColumn("status").get(0));
        assertEquals(result.globalSteps(), all.longColumn("steps").get(0));
        assertEquals(result.wallSeconds(), all.doubleColumn("wall_seconds").get(0), 1e-9);
        assertTrue(!all.instantColumn("ended").isMissing(0), "no end time");
        List<JobCost> costs = context.events(JobCost.class);
        assertTrue(!costs.isEmpty(), "the job sent no cost");
        assertEquals(costs.get(costs.size() - 1).usdSpent(), all.doubleColumn("usd").get(0));
        assertEquals("fraud", all.stringColumn("data").get(0));
        assertEquals(512L, all.longColumn("rows").get(0));
        assertTrue(all.stringColumn("columns").get(0).contains("\"is_fraud\""),
                all.stringColumn("columns").get(0));
        JsonObject settings = JsonParser.parseString(all.stringColumn("settings").get(0))
                .getAsJsonObject();
        assertEquals("32", settings.get("batch-size").getAsString());
        assertEquals("2", settings.get("epochs").getAsString());
        assertEquals("adam", settings.get("optimizer").getAsString());

        List<StepMetrics> steps = result.steps();
        assertEquals(24, steps.size(), "2 epochs of 12 steps (384 of 512 rows, batch 32)");
        Table metrics = runs.metrics(runId);
        assertEquals(steps.size(), metrics.rowCount());
        for (int i = 0; i < steps.size(); i++) {
            assertEquals(steps.get(i).step(), metrics.longColumn("step").get(i));
            assertEquals(steps.get(i).loss(), metrics.doubleColumn("loss").get(i), 0.0,
                    "loss of step " + steps.get(i).step());
        }
        Table epochs = runs.epochMetrics(runId);
        assertEquals(2, epochs.rowCount());
        for (int e = 0; e < 2; e++) {
            EpochMetrics m = result.epochs().get(e);
            assertEquals(m.trainLoss(), epochs.doubleColumn("train_loss").get(e), 0.0);
            assertEquals(m.validationLoss(), epochs.doubleColumn("validation_loss").get(e), 0.0);
        }
    }

    @Test
    void theFinishedRunKeepsItsModelWhichReopensByItsId() {
        Path dir = RunFolders.model(folder, runId);
        assertEquals(dir.toString(), runs.table().stringColumn("model_dir").get(0));
        TrainResult back = RunFolders.openModel(folder, runId);
        Table t = SyntheticFraud.generate(64, 3);
        assertArrayEquals(result.probabilities(t, 1), back.probabilities(t, 1));
        DmlException unknown = assertThrows(DmlException.class,
                () -> RunFolders.openModel(folder, "nope"));
        assertEquals("No run 'nope' in the run store " + folder + ".", unknown.what());
        assertThrows(DmlException.class, () -> RunFolders.openModel(folder, "../" + runId),
                "an id is no path");
    }

    @Test
    void tensorboardsEventAccumulatorReadsEveryScalarAndTheSettings() throws Exception {
        JsonObject read = TensorBoard.read(runs.store().folderOf(runId)).getAsJsonObject();
        JsonObject scalars = read.getAsJsonObject("scalars");
        assertSteps(scalars.getAsJsonArray(RunRecorder.LOSS), 0);
        assertEpochs(scalars.getAsJsonArray(RunRecorder.EPOCH_LOSS), false, 0);
        assertEpochs(scalars.getAsJsonArray(RunRecorder.VAL_LOSS), true, 0);
        JsonObject hparams = read.getAsJsonObject("hparams");
        assertEquals(32.0, hparams.get("batch-size").getAsDouble());
        assertEquals(2.0, hparams.get("epochs").getAsDouble());
        assertEquals("adam", hparams.get("optimizer").getAsString());
        assertEquals(true, hparams.get("shuffle").getAsBoolean());
        assertEquals(runId, read.get("group").getAsString());
        assertEquals("STATUS_SUCCESS", read.get("status").getAsString());
    }

    @Test
    void aTensorBoardServerServesTheRunsScalarsAndSettings() throws Exception {
        try (TensorBoard server = TensorBoard.start(folder)) {
            server.getWhen("/data/plugin/scalars/tags", tags -> tags.getAsJsonObject()
                    .has(runId) && tags.getAsJsonObject().getAsJsonObject(runId)
                    .has(RunRecorder.VAL_LOSS));
            // [wall_time, step, value] per point, as the dashboard's charts fetch them
            assertSteps(server.getWhen("/data/plugin/scalars/scalars" + TensorBoard.query(
                    List.of("run", runId, "tag", RunRecorder.LOSS)), a -> true)
                    .getAsJsonArray(), 1);
            assertEpochs(server.getWhen("/data/plugin/scalars/scalars" + TensorBoard.query(
                    List.of("run", runId, "tag", RunRecorder.VAL_LOSS)), a -> true)
                    .getAsJsonArray(), true, 1);

            // the HParams dashboard's table: the run's settings and its last epoch's metrics
            JsonObject groups = server.postWhen("/data/plugin/hparams/session_groups",
                    "{\"experimentName\": \"\", \"allowedStatuses\": [\"STATUS_SUCCESS\"],"
                    + " \"colParams\": [], \"startIndex\": 0, \"sliceSize\": 10}",
                    g -> g.getAsJsonObject().getAsJsonArray("sessionGroups").size() > 0)
                    .getAsJsonObject();
            JsonObject group = groups.getAsJsonArray("sessionGroups").get(0).getAsJsonObject();
            assertEquals(runId, group.get("name").getAsString());
            JsonObject hparams = group.getAsJsonObject("hparams");
            assertEquals(32.0, hparams.get("batch-size").getAsDouble());
            assertEquals(2.0, hparams.get("epochs").getAsDouble(), hparams.toString());
            assertEquals("adam", hparams.get("optimizer").getAsString());
            EpochMetrics last = result.epochs().get(1);
            boolean found = false;
            for (JsonElement m : group.getAsJsonArray("metricValues")) {
                JsonObject metric = m.getAsJsonObject();
                if (metric.getAsJsonObject("name").get("tag").getAsString()
                        .equals(RunRecorder.VAL_LOSS)) {
                    assertEquals(last.validationLoss(), (float) metric.get("value")
                            .getAsDouble());
                    assertEquals(2, metric.get("trainingStep").getAsInt());
                    found = true;
                }
            }
            assertTrue(found, "no " + RunRecorder.VAL_LOSS + " in " + group);
        }
    }

    /**
     * Every step's loss, exactly (float32 both ways).
     *
     * @param points [step, value] or [wall_time, step, value] per point
     * @param stepAt the index of the step in a point; the value follows it
     */
    private static void assertSteps(JsonArray points, int stepAt) {
        List<StepMetrics> steps = result.steps();
        assertEquals(steps.size(), points.size(), "points of " + RunRecorder.LOSS);
        for (int i = 0; i < steps.size(); i++) {
            JsonArray p = points.get(i).getAsJsonArray();
            assertEquals(steps.get(i).step(), p.get(stepAt).getAsLong(), "step of point " + i);
            assertEquals(steps.get(i).loss(), (float) p.get(stepAt + 1).getAsDouble(),
                    "loss of step " + steps.get(i).step());
        }
    }

    private static void assertEpochs(JsonArray points, boolean validation, int stepAt) {
        List<EpochMetrics> epochs = result.epochs();
        assertEquals(epochs.size(), points.size());
        for (int i = 0; i < epochs.size(); i++) {
            JsonArray p = points.get(i).getAsJsonArray();
            EpochMetrics m = epochs.get(i);
            assertEquals(m.epoch(), p.get(stepAt).getAsLong());
            assertEquals(validation ? m.validationLoss() : m.trainLoss(),
                    (float) p.get(stepAt + 1).getAsDouble(), "epoch " + m.epoch());
        }
    }
}
