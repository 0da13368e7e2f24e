package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.ray.train.recovery.Checkpoints;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each job keeps its checkpoints apart, by name and model; resume finds only its own. */
class CheckpointStoreTest {

    private static final String MLP = "MLP{inputs=30, outputs=2, hidden=[64]}, adam, 1 stage";
    private static final String CNN = "CNN{inputs=784, outputs=10, hidden=[32]}, adam, 1 stage";

    /** Writes a checkpoint as the store of {@code job} and {@code model} names it. */
    private static void write(Path root, String job, String model, int run, long step)
            throws IOException {
        CheckpointStore s = new CheckpointStore(root, job, model, false);
        Checkpoints.write(s.folder(), new Checkpoints.Header(null, run, step, 9,
                CheckpointStore.fingerprint(model), model), List.of(new byte[] {1}), List.of());
    }

    @Test
    void theFolderIsTheJobAndTheModelsFingerprint(@TempDir Path root) {
        CheckpointStore s = new CheckpointStore(root, "my fraud/v2", MLP, false);
        assertEquals(root.resolve("my_fraud_v2-" + CheckpointStore.fingerprint(MLP)),
                s.folder());
        assertEquals(12, CheckpointStore.fingerprint(MLP).length());
        assertNotEquals(CheckpointStore.fingerprint(MLP), CheckpointStore.fingerprint(CNN));
    }

    @Test
    void resumeFindsItsOwnNewestCheckpointNotAnotherJobs(@TempDir Path root)
            throws IOException {
        write(root, "fraud", MLP, 1, 500);
        write(root, "fraud", MLP, 2, 100);
        write(root, "other", MLP, 7, 900); // another job's files, same model, higher numbers
        Checkpoints.Checkpoint c = new CheckpointStore(root, "fraud", MLP, false).latest();
        assertEquals(2, c.header().run());
        assertEquals(100, c.step());
    }

    @Test
    void resumeWithNothingToFindSaysSoInOneLine(@TempDir Path root) throws IOException {
        write(root, "other", MLP, 1, 50);
        CheckpointStore s = new CheckpointStore(root, "fraud", MLP, false);
        assertNull(s.latest());
        assertEquals("--resume found no checkpoint of job 'fraud' in --checkpoint-dir " + root
                + "; the job starts afresh.", Vocabulary.NOTEBOOK.render(s.noneFound()));
    }

    @Test
    void resumeRefusesTheCheckpointsOfAnotherModel(@TempDir Path root) throws IOException {
        write(root, "fraud", CNN, 1, 50);
        DmlException e = assertThrows(DmlException.class,
                () -> new CheckpointStore(root, "fraud", MLP, false).latest());
        e.speaking(Vocabulary.NOTEBOOK);
        assertEquals("--resume: the checkpoints of job 'fraud' in --checkpoint-dir are of"
                + " another model (" + CNN + "); this job trains " + MLP + ".", e.what());
        assertEquals("Resume with that model and data, drop --resume to start afresh, or use"
                + " another --checkpoint-dir.", e.hint());
    }

    @Test
    void aFileWhoseHeaderNamesAnotherModelIsRefusedToo(@TempDir Path root) throws IOException {
        CheckpointStore s = new CheckpointStore(root, "fraud", MLP, false);
        Checkpoints.write(s.folder(), new Checkpoints.Header(null, 1, 5, 9,
                CheckpointStore.fingerprint(CNN), CNN), List.of(new byte[] {1}), List.of());
        assertThrows(DmlException.class, s::latest);
    }

    @Test
    void aDamagedNewestFileFallsBackToThePreviousOne(@TempDir Path root) throws IOException {
        write(root, "fraud", MLP, 1, 10);
        write(root, "fraud", MLP, 1, 20);
        CheckpointStore s = new CheckpointStore(root, "fraud", MLP, false);
        Path newest = s.folder().resolve(Checkpoints.name(1, 20));
        byte[] b = Files.readAllBytes(newest);
        Files.write(newest, java.util.Arrays.copyOf(b, b.length - 3));
        assertEquals(10, s.latest().step());
    }

    /**
     * Issue 26, row 7: a second kernel (here a process of its own) that runs the same job and
     * model into the same folder is refused in one line while the first holds it, so neither
     * prunes the other's files nor resumes from its state; once the first dies (SIGKILL, as in
     * a crash) the operating system drops its lock, and a resume continues from its checkpoint.
     */
    @Test
    void row7OneJobAtATimeHoldsItsFolderAndACrashedOneLetsGo(@TempDir Path root)
            throws Exception {
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-cp", System.getProperty("java.class.path"),
                CheckpointStoreTest.class.getName(), root.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(
                    other.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("holding", CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).get(60, TimeUnit.SECONDS));
            DmlException e = assertThrows(DmlException.class,
                    () -> CheckpointStore.open(root, "fraud", MLP, false));
            e.speaking(Vocabulary.NOTEBOOK);
            assertEquals("Job 'fraud' of this model is already writing checkpoints into"
                    + " --checkpoint-dir " + root + " (pid " + other.pid() + " on "
                    + InetAddress.getLocalHost().getHostName() + ").", e.what());
            assertEquals("Wait for that job to end, or give this one another"
                    + " --checkpoint-dir.", e.hint());
            new CheckpointStore(root, "fraud", MLP, false).latest(); // reading needs no lock
            CheckpointStore.open(root, "other", MLP, false).close(); // another job's folder
        } finally {
            other.destroyForcibly();
            assertTrue(other.waitFor(60, TimeUnit.SECONDS));
        }
        try (CheckpointStore s = CheckpointStore.open(root, "fraud", MLP, false)) {
            assertEquals(40, s.latest().step(), "the crashed run's checkpoint");
            DmlException e = assertThrows(DmlException.class,
                    () -> CheckpointStore.open(root, "fraud", MLP, false));
            assertTrue(e.what().endsWith(" (another job of this kernel)."), e.what());
        }
        CheckpointStore.open(root, "fraud", MLP, false).close(); // closing let go
    }

    /**
     * The other kernel of {@link #row7OneJobAtATimeHoldsItsFolderAndACrashedOneLetsGo}: holds
     * job 'fraud' in {@code args[0]}, writes a checkpoint, says so, and waits to be killed.
     */
    public static void main(String[] args) throws Exception {
        CheckpointStore s = CheckpointStore.open(Path.of(args[0]), "fraud", MLP, false);
        Checkpoints.write(s.folder(), new Checkpoints.Header(null, 1, 40, 9,
                CheckpointStore.fingerprint(MLP), MLP), List.of(new byte[] {1}), List.of());
        System.out.println("holding");
        System.out.flush();
        Thread.sleep(120_000); // killed long before; bounded should the test die first
    }
}
