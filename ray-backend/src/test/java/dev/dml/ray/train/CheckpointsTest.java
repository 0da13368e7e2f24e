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
            Checkpoints.write(dir, s * 10, 7, new byte[] {(byte) s, 2, 3});
        }
        assertEquals(3, Checkpoints.list(dir).size());
        try (var files = Files.list(dir)) {
            assertEquals(3, files.count(), "a temporary file was left");
        }
        Checkpoints.Checkpoint c = Checkpoints.latest(dir);
        assertEquals(50, c.step());
        assertEquals(7, c.stepsPerEpoch());
        assertArrayEquals(new byte[] {5, 2, 3}, c.state());
    }

    @Test
    void aTruncatedOrCorruptNewestFileFallsBackToThePreviousOne(@TempDir Path dir)
            throws IOException {
        Checkpoints.write(dir, 1, 1, new byte[100]);
        Path p2 = Checkpoints.write(dir, 2, 1, new byte[100]);
        Path p3 = Checkpoints.write(dir, 3, 1, new byte[100]);
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
    void noFolderMeansNoCheckpoint(@TempDir Path dir) {
        assertNull(Checkpoints.latest(dir.resolve("missing")));
        assertEquals(List.of(), List.of());
    }
}
