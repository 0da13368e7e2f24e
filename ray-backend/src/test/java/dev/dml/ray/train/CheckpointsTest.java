package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint files: atomic write, checksum, fallback past a damaged file, pruning. */
class CheckpointsTest {

    @Test
    void roundTripKeepsTheNewestThreeAndLeavesNoTemporaryFile(@TempDir Path dir)
            throws IOException {
        for (int s = 1; s <= 5; s++) {
            Checkpoints.write(dir, s * 10, 7, List.of(new byte[] {(byte) s, 2, 3}));
        }
        assertEquals(3, Checkpoints.list(dir).size());
        try (var files = Files.list(dir)) {
            assertEquals(3, files.count(), "a temporary file was left");
        }
        Checkpoints.Checkpoint c = Checkpoints.latest(dir);
        assertEquals(50, c.step());
        assertEquals(7, c.stepsPerEpoch());
        assertArrayEquals(new byte[] {5, 2, 3}, c.states().get(0));
    }

    @Test
    void aTruncatedOrCorruptNewestFileFallsBackToThePreviousOne(@TempDir Path dir)
            throws IOException {
        Checkpoints.write(dir, 1, 1, List.of(new byte[100]));
        Path p2 = Checkpoints.write(dir, 2, 1, List.of(new byte[100]));
        Path p3 = Checkpoints.write(dir, 3, 1, List.of(new byte[100]));
        byte[] b = Files.readAllBytes(p3);
        b[40] ^= 1;
        Files.write(p3, b);
        IOException e = assertThrows(IOException.class, () -> Checkpoints.read(p3));
        assertEquals("checksum mismatch", e.getMessage());
        assertEquals(2, Checkpoints.latest(dir).step());
        Files.write(p2, new byte[10]);
        assertTrue(assertThrows(IOException.class, () -> Checkpoints.read(p2)).getMessage()
                .startsWith("truncated"));
        assertEquals(1, Checkpoints.latest(dir).step());
    }

    @Test
    void noFolderMeansNoCheckpoint(@TempDir Path dir) throws IOException {
        assertNull(Checkpoints.latest(dir.resolve("missing")));
        assertEquals(List.of(), Checkpoints.list(dir.resolve("missing")));
        assertNull(Checkpoints.latest(dir), "an empty folder");
    }

    @Test
    void eachStageKeepsItsOwnState(@TempDir Path dir) throws IOException {
        Path p = Checkpoints.write(dir, 12, 4, List.of(new byte[] {1}, new byte[0],
                new byte[] {7, 8, 9}));
        Checkpoints.Checkpoint c = Checkpoints.read(p);
        assertEquals(3, c.states().size());
        assertArrayEquals(new byte[] {1}, c.states().get(0));
        assertArrayEquals(new byte[0], c.states().get(1));
        assertArrayEquals(new byte[] {7, 8, 9}, c.states().get(2));
        assertEquals(12, c.step());
    }

    @Test
    void aFileOfAnotherFormatIsSkipped(@TempDir Path dir) throws IOException {
        Checkpoints.write(dir, 5, 1, List.of(new byte[] {5}));
        Files.write(dir.resolve("checkpoint-000000000009.dml"), "DMLCKPT1, an older format that held one state".getBytes());
        assertEquals("not a dml checkpoint of this version", assertThrows(IOException.class,
                () -> Checkpoints.read(dir.resolve("checkpoint-000000000009.dml")))
                .getMessage());
        assertEquals(5, Checkpoints.latest(dir).step());
    }
}
