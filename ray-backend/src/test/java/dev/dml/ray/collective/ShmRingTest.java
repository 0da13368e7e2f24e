package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared-memory ring's bookkeeping: room, wrap-around, and its file's life. */
class ShmRingTest {

    private static byte[] bytes(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void aFullRingRefusesUntilTheReaderFreesItAndPayloadsNeverSplitAtTheEnd(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("ring");
        try (ShmRing sender = ShmRing.create(file, 100)) {
            ShmRing receiver = ShmRing.open(file);
            assertFalse(Files.exists(file), "the receiver leaves no file behind");
            assertEquals(0, sender.write(bytes(40, 1)));
            assertEquals(40, sender.write(bytes(40, 2)));
            assertEquals(-1, sender.write(bytes(30, 3)), "only 20 bytes are free");
            assertEquals(-1, sender.write(bytes(101, 4)), "bigger than the ring");
            assertArrayEquals(bytes(40, 1), receiver.read(0, 40));
            // 20 bytes left before the end: the payload starts over at the ring's start
            assertEquals(100, sender.write(bytes(30, 3)));
            assertArrayEquals(bytes(40, 2), receiver.read(40, 40));
            assertArrayEquals(bytes(30, 3), receiver.read(100, 30));
            // all read: the next payload starts over at the ring's start
            assertEquals(200, sender.write(bytes(70, 5)));
            assertEquals(270, sender.write(bytes(20, 6)));
            assertEquals(-1, sender.write(bytes(20, 7)), "only 10 bytes are free");
            assertArrayEquals(bytes(70, 5), receiver.read(200, 70));
            assertArrayEquals(bytes(20, 6), receiver.read(270, 20));
        }
    }

    @Test
    void aRingNobodyOpenedIsDeletedAtClose(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ring");
        ShmRing.create(file, 64).close();
        assertFalse(Files.exists(file));
    }
}
