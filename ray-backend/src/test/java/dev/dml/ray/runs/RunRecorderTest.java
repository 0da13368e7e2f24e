package dev.dml.ray.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * What a run's record holds beside its metrics: the dml build, the workers, the priced nodes,
 * recoveries, resizes and notices, and a failure; all written in batches off the events'
 * thread.
 */
class RunRecorderTest {

    private static final WorkerInfo W0 = new WorkerInfo(0, 2, 101, "node-a");
    private static final WorkerInfo W1 = new WorkerInfo(1, 2, 102, "node-b");

    @Test
    void theRecordKeepsBuildWorkersNodesEventsAndAFailure(@TempDir Path dir) {
        try (Runs runs = Runs.open(dir)) {
            RunRecorder run = RunRecorder.start(runs.store(), RecordingChild.spec());
            run.onStart(List.of(W0, W1));
            for (long step = 1; step <= 4; step++) {
                run.onStep(new StepMetrics(1, step, 1f / step, 32, 100, 1, 0, 0, 0, List.of(),
                        System.currentTimeMillis()));
            }
            run.onEpoch(new EpochMetrics(1, 4, 4, 0.4f, 1.0, 128, 0.5f, 0.75, Double.NaN));
            run.onResize(new Resize(3, 2, 1, "node-b lost", List.of(W0)));
            run.onRecovery(new Recovery(3, 2, 1, 0.5, "node-b lost", "memory", false,
                    List.of(W0)));
            run.onNotice(new JobNotice(4, "{resume} found no checkpoint"));
            run.onCost(new JobCost(4, 1.5, 0.01, 24, 0.1, true, false, "1 node: aws m5.large"));
            run.onFailed(new DmlException("A worker died.", "Start it again."));

            Table all = runs.table();
            assertEquals(1, all.rowCount());
            assertEquals("failed", all.stringColumn("status").get(0));
            assertEquals("A worker died.", all.stringColumn("error").get(0));
            assertEquals(DmlBuild.VERSION, all.stringColumn("dml_version").get(0));
            assertTrue(!DmlBuild.VERSION.equals("unknown"), "the build's version is filtered in");
            assertEquals("1 node: aws m5.large", all.stringColumn("cluster").get(0));
            assertEquals(1.5, all.doubleColumn("usd_per_hour").get(0));
            assertTrue(all.stringColumn("workers").get(0).contains("\"host\":\"node-b\""),
                    all.stringColumn("workers").get(0));
            assertEquals(4L, all.longColumn("steps").get(0), "queued steps reach the store");
            assertEquals(1, all.intColumn("epochs").get(0));
            assertEquals(0.5, all.doubleColumn("val_loss").get(0), 1e-6);
            assertEquals(0.75, all.doubleColumn("val_accuracy").get(0), 1e-9);

            Table events = runs.events(run.runId());
            assertEquals(List.of("resize", "recovery", "notice"),
                    events.stringColumn("kind").asList());
            assertEquals("2 -> 1 workers: node-b lost", events.stringColumn("detail").get(0));
            assertTrue(events.stringColumn("detail").get(1).startsWith("lost workers at step 3:"
                    + " resumed from step 2"), events.stringColumn("detail").get(1));
            assertEquals("optResume found no checkpoint", events.stringColumn("detail").get(2));
        }
    }

    @Test
    void aStepOnlyQueuesItsWritesTillTheWriterFlushes(@TempDir Path dir) {
        try (Runs runs = Runs.open(dir)) {
            long t0 = System.nanoTime();
            RunRecorder run = RunRecorder.start(runs.store(), RecordingChild.spec());
            run.onStep(new StepMetrics(1, 1, 0.5f, 32, 100, 1, 0, 0, 0, List.of(),
                    System.currentTimeMillis()));
            int seen = runs.metrics(run.runId()).rowCount();
            if (System.nanoTime() - t0 < RunWriter.EVERY.toNanos() * 9 / 10) {
                assertEquals(0, seen, "the step was written on the events' thread");
            }
            run.flush();
            assertEquals(1, runs.metrics(run.runId()).rowCount());
            run.onFailed(new DmlException("ended by the test", "none"));
        }
    }

    @Test
    void anUnknownRunIdSaysWhereToFindOne(@TempDir Path dir) {
        try (Runs runs = Runs.open(dir)) {
            DmlException e = assertThrows(DmlException.class, () -> runs.events("nope"));
            assertTrue(e.what().startsWith("No run 'nope' in the run store "), e.what());
        }
    }

    @Test
    void anOlderStoreGainsTheLaterColumns(@TempDir Path dir) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + dir.resolve("runs.db")); java.sql.Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT NOT NULL,"
                    + " status TEXT NOT NULL, started_ms INTEGER NOT NULL, ended_ms INTEGER,"
                    + " last_write_ms INTEGER NOT NULL, host TEXT NOT NULL, pid INTEGER NOT"
                    + " NULL, pid_started_ms INTEGER NOT NULL, settings TEXT NOT NULL,"
                    + " data_source TEXT, data_rows INTEGER, data_columns TEXT, data_hash TEXT,"
                    + " steps INTEGER NOT NULL DEFAULT 0, final_loss REAL, usd REAL,"
                    + " usd_per_hour REAL, wall_seconds REAL, error TEXT)");
            s.executeUpdate("INSERT INTO runs (id, name, status, started_ms, last_write_ms,"
                    + " host, pid, pid_started_ms, settings) VALUES ('old', 'old', 'finished',"
                    + " 1, 1, 'h', 1, 1, '{}')");
        }
        try (Runs runs = Runs.open(dir)) {
            Table all = runs.table();
            assertEquals("old", all.stringColumn("id").get(0));
            assertTrue(all.stringColumn("model_dir").isMissing(0));
        }
    }
}
