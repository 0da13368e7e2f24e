package dev.dml.ray.train.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint files: the format, its checks, the order of runs and the pruning. */
class CheckpointsTest {

    static Checkpoints.Header header(int run, long step) {
        return new Checkpoints.Header(null, run, step, 7, "fp0123456789", "mlp, adam, 1 stage");
    }

    static Path write(Path dir, int run, long step, byte... state) throws IOException {
        return Checkpoints.write(dir, header(run, step), List.of(state), List.of());
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void roundTripOfInlineStates(@TempDir Path dir) throws IOException {
        Path p = Checkpoints.write(dir, header(2, 12), List.of(new byte[] {1}, new byte[0],
                new byte[] {7, 8, 9}), List.of());
        assertEquals("ckpt-r0002-s000000000012.dml", p.getFileName().toString());
        Checkpoints.Checkpoint c = Checkpoints.read(p);
        assertEquals(header(2, 12).fingerprint(), c.header().fingerprint());
        assertEquals("mlp, adam, 1 stage", c.header().description());
        assertEquals(7, c.header().stepsPerEpoch());
        assertEquals(12, c.step());
        assertEquals(3, c.states().size());
        assertArrayEquals(new byte[] {7, 8, 9}, c.states().get(2));
        assertEquals(List.of(), c.files());
        assertEquals(c.header().run(), Checkpoints.header(p).run(), "the header alone reads");
        assertEquals(List.of(p.getFileName().toString()), names(dir), "no temporary file left");
    }

    @Test
    void roundTripOfStageFiles(@TempDir Path dir) throws IOException {
        StageFile f = StageFile.write(
                dir.resolve(StageFile.fileName(1, 5, 0)), new byte[] {4, 5});
        Path p = Checkpoints.write(dir, header(1, 5), List.of(), List.of(f));
        Checkpoints.Checkpoint c = Checkpoints.read(p);
        assertEquals(List.of(), c.states());
        assertEquals("ckpt-r0001-s000000000005.stage0", c.files().get(0).name());
        assertArrayEquals(new byte[] {4, 5}, c.files().get(0).read(
                dir.resolve(c.files().get(0).name())));
        Files.write(dir.resolve(f.name()), new byte[] {4, 6});
        DmlException e = assertThrows(DmlException.class, () -> f.read(
                dir.resolve(f.name())));
        assertTrue(e.what().endsWith("is damaged: its length or checksum differ from its"
                + " checkpoint's."), e.what());
    }

    @Test
    void aDamagedFileFailsItsChecks(@TempDir Path dir) throws IOException {
        Path p = write(dir, 1, 3, new byte[100]);
        byte[] b = Files.readAllBytes(p);
        b[40] ^= 1;
        Files.write(p, b);
        assertEquals("checksum mismatch (truncated or damaged)",
                assertThrows(IOException.class, () -> Checkpoints.read(p)).getMessage());
        Files.write(p, new byte[10]);
        assertThrows(IOException.class, () -> Checkpoints.read(p));
        Files.write(p, "DMLCKPT2, the format before runs and fingerprints".getBytes());
        assertEquals("not a dml checkpoint of this version",
                assertThrows(IOException.class, () -> Checkpoints.header(p)).getMessage());
    }

    @Test
    void aNewRunOutranksHigherStepsOfAnOlderOne(@TempDir Path dir) throws IOException {
        write(dir, 1, 400);
        write(dir, 1, 500);
        write(dir, 2, 100);
        assertEquals(List.of("ckpt-r0002-s000000000100.dml", "ckpt-r0001-s000000000500.dml",
                "ckpt-r0001-s000000000400.dml"), Checkpoints.list(dir).stream()
                .map(p -> p.getFileName().toString()).toList());
        assertEquals(2, Checkpoints.lastRun(dir));
        assertEquals(0, Checkpoints.lastRun(dir.resolve("missing")));
    }

    @Test
    void pruningKeepsTheNewestWithTheirStageFiles(@TempDir Path dir) throws IOException {
        for (int s = 1; s <= 4; s++) {
            StageFile f = StageFile.write(
                    dir.resolve(StageFile.fileName(1, s, 0)), new byte[] {(byte) s});
            Checkpoints.write(dir, header(1, s), List.of(), List.of(f));
        }
        // a failed write's stage file, older than every kept checkpoint
        Files.write(dir.resolve(StageFile.fileName(1, 0, 0)), new byte[1]);
        Files.writeString(dir.resolve("notes.txt"), "not ours");
        Checkpoints.prune(dir, 2);
        assertEquals(List.of("ckpt-r0001-s000000000003.dml", "ckpt-r0001-s000000000003.stage0",
                "ckpt-r0001-s000000000004.dml", "ckpt-r0001-s000000000004.stage0", "notes.txt"),
                names(dir));
    }

    /**
     * Issue 26, row 14: a checkpoint whose stage files are named "..", an absolute path, or a
     * link out of its folder is refused in one line before any worker reads them.
     */
    @Test
    void row14StageFilesOutsideTheCheckpointsFolderAreRefused(@TempDir Path root)
            throws IOException {
        Path dir = Files.createDirectories(root.resolve("job"));
        Path secret = Files.write(root.resolve("secret.bin"), new byte[] {1, 2});
        Files.createSymbolicLink(dir.resolve(StageFile.fileName(1, 3, 0)), secret);
        for (String name : List.of("../secret.bin", secret.toString(),
                StageFile.fileName(1, 3, 0))) {
            Path p = Checkpoints.write(dir, header(1, 3), List.of(),
                    List.of(new StageFile(name, 2, 0)));
            DmlException e = assertThrows(DmlException.class, () -> Checkpoints.read(p), name);
            assertEquals("Checkpoint " + p + " names the stage file '" + name + "', which is"
                    + " not a file dml writes beside it.", e.what());
            assertEquals("Delete that checkpoint: dml did not write it, or it was altered.",
                    e.hint());
        }
        Files.delete(dir.resolve(StageFile.fileName(1, 3, 0)));
        StageFile own = StageFile.write(
                dir.resolve(StageFile.fileName(1, 3, 0)), new byte[] {1, 2});
        Path p = Checkpoints.write(dir, header(1, 3), List.of(), List.of(own));
        assertEquals(own.name(), Checkpoints.read(p).files().get(0).name(),
                "a stage file dml wrote beside it is read");
    }
}
