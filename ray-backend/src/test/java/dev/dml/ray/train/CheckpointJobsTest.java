package dev.dml.ray.train;

import dev.dml.options.CheckpointFailure;
import dev.dml.options.CheckpointWriter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.JobNotice;
import dev.dml.events.StepMetrics;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainLocalTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Jobs and their checkpoints, with real workers in Ray's LOCAL mode: each job keeps and prunes
 * its own files, a new run outranks an older one's higher steps, resume refuses another
 * model's state and says when it finds nothing, and a failed write is reported, not fatal
 * (unless asked). 600 rows, 2 workers, batch 32: 9 steps an epoch.
 */
@ExtendWith(LocalRayExtension.class)
class CheckpointJobsTest {

    private static final Table TABLE = SyntheticFraud.generate(600, 9);

    @TempDir
    Path dir;

    /** A 2-worker job on the fraud table that checkpoints every {@code every} steps. */
    static TrainSpecBuilder job(int epochs, Path ck, int every) {
        return TrainLocalTest.fraudJob(TABLE, OptimizerSpec.adam(5e-3f), epochs, 32)
                .optWorkers(2).optReportEvery(1).optName("fraud").optCheckpoints(ck, every);
    }

    private static List<String> notices(FakeDriverContext ctx) {
        return ctx.events(JobNotice.class).stream()
                .map(n -> Vocabulary.NOTEBOOK.render(n.template())).toList();
    }

    private static Path onlyFolder(Path root) throws IOException {
        try (Stream<Path> s = Files.list(root)) {
            return s.toList().get(0);
        }
    }

    @Test
    void anOlderRunsHigherStepsNeitherPruneNorShadowANewRun() throws IOException {
        Path ck = dir.resolve("ck");
        TrainLocalTest.run(job(3, ck, 5).build(), new FakeDriverContext()); // steps 5 .. 25
        TrainResult second = TrainLocalTest.run(job(1, ck, 5).build(), new FakeDriverContext());
        assertEquals(9, second.globalSteps());
        Path jobDir = onlyFolder(ck);
        assertEquals(List.of("ckpt-r0002-s000000000005.dml", "ckpt-r0001-s000000000025.dml",
                "ckpt-r0001-s000000000020.dml"), Checkpoints.list(jobDir).stream()
                .map(p -> p.getFileName().toString()).toList(), "the new run's file was kept");
        TrainResult resumed = TrainLocalTest.run(job(3, ck, 5).optResume(true).build(),
                new FakeDriverContext());
        assertEquals(5, resumed.resumedFromStep(), "the newest run's state, not the older one's");
    }

    @Test
    void resumeThatFindsNothingSaysSoAndStartsAfresh() {
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = TrainLocalTest.run(job(1, dir, 5).optResume(true).build(), ctx);
        assertEquals(-1, r.resumedFromStep());
        assertEquals(9, r.globalSteps());
        assertEquals(List.of("--resume found no checkpoint of job 'fraud' in --checkpoint-dir "
                + dir + "; the job starts afresh."), notices(ctx));
    }

    @Test
    void resumeRefusesTheStateOfAnotherModel() {
        TrainLocalTest.run(job(1, dir, 5).build(), new FakeDriverContext());
        ModelSpec wider = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .addHidden(32).optSeed(3).build();
        DmlException e = assertThrows(DmlException.class, () -> TrainLocalTest.run(
                job(1, dir, 5).setModel(wider).optResume(true).build(),
                new FakeDriverContext()));
        e.speaking(Vocabulary.NOTEBOOK);
        assertTrue(e.what().startsWith("--resume: the checkpoints of job 'fraud' in"
                + " --checkpoint-dir are of another model (MLP{inputs=31, outputs=2,"
                + " hidden=[16]"), e.what());
        assertTrue(e.what().contains("this job trains MLP{inputs=31, outputs=2, hidden=[32]"),
                e.what());
    }

    @Test
    void aFailedWriteIsReportedOnceAndTrainingGoesOn() throws IOException {
        Path blocked = Files.writeString(dir.resolve("not-a-folder"), "x");
        FakeDriverContext[] ctx = new FakeDriverContext[1];
        ctx[0] = new FakeDriverContext(e -> {
            if (e instanceof StepMetrics m && m.step() == 20) {
                try {
                    Files.delete(blocked); // the disk has room again: the next write works
                } catch (IOException x) {
                    throw new AssertionError(x);
                }
            }
        });
        TrainResult r = TrainLocalTest.run(job(3, blocked, 5).build(), ctx[0]);
        assertFalse(r.stopped());
        assertEquals(27, r.globalSteps());
        List<String> lines = notices(ctx[0]);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("The checkpoint of step 5 could not be written: "),
                lines.get(0));
        assertTrue(lines.get(0).endsWith(" Training goes on; no checkpoint was written yet."),
                lines.get(0));
        assertEquals("Checkpoints are written again from step 25, after 4 failed.",
                lines.get(1));
    }

    @Test
    void aFailedWriteStopsTheJobWhenAsked() throws IOException {
        Path blocked = Files.writeString(dir.resolve("not-a-folder"), "x");
        DmlException e = assertThrows(DmlException.class, () -> TrainLocalTest.run(
                job(3, blocked, 5).opt(TrainOptions.CHECKPOINT_FAILURE, CheckpointFailure.STOP)
                        .build(),
                new FakeDriverContext()));
        e.speaking(Vocabulary.NOTEBOOK);
        assertTrue(e.what().startsWith("The checkpoint of step 5 could not be written: "),
                e.what());
        assertTrue(e.what().endsWith(" The job stops, as --checkpoint-failure stop asks."),
                e.what());
    }

    @Test
    void aFullDiskIsReported() throws IOException, InterruptedException {
        Path small = Files.createDirectory(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8k", "dml12",
                small.toString()).redirectErrorStream(true).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mount.waitFor() == 0,
                "cannot mount a small tmpfs here (needs root)");
        try {
            FakeDriverContext ctx = new FakeDriverContext();
            ModelSpec big = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                    .addHidden(256).optSeed(3).build(); // 100 KB of state: more than fits
            TrainResult r = TrainLocalTest.run(job(1, small, 5).setModel(big).build(), ctx);
            assertEquals(9, r.globalSteps(), "training went on");
            assertTrue(notices(ctx).get(0).contains("No space left on device"), "" + notices(ctx));
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    @Test
    void theSharedStoreWritesStageFilesThatResumeReads() throws IOException {
        TrainLocalTest.run(job(1, dir, 5)
                .opt(TrainOptions.CHECKPOINT_STORE, CheckpointWriter.SHARED).build(),
                new FakeDriverContext());
        Path jobDir = onlyFolder(dir);
        try (Stream<Path> s = Files.list(jobDir)) {
            assertEquals(List.of("ckpt-r0001-s000000000005.dml",
                    "ckpt-r0001-s000000000005.stage0"), s.map(p -> p.getFileName().toString())
                    .sorted().toList(), "the worker wrote the state, the driver a small file");
        }
        assertTrue(Files.size(jobDir.resolve("ckpt-r0001-s000000000005.dml")) < 300);
        TrainResult resumed = TrainLocalTest.run(job(2, dir, 5).optResume(true).build(),
                new FakeDriverContext());
        assertEquals(5, resumed.resumedFromStep());
    }
}
