package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared-memory ring's bookkeeping: room, wrap-around, its file's life and privacy. */
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

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(
                Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * Issue 26, row 1: another local user can neither read a ring (the gradients) nor learn
     * the group's token from its name, which is all a peer's endpoint checks.
     */
    @Test
    void row1RingsAreOwnerOnlyInAPrivateFolderAndTheirNamesTellNoToken(@TempDir Path dir)
            throws Exception {
        long token = 0x5eedc0de1234abcdL;
        Path file = ShmRing.fileFor(token, 0, 1);
        Path mine = Files.createFile(dir.resolve("mine"));
        try (ShmRing ring = ShmRing.create(file, 4096)) {
            assertEquals("rw-------", mode(file), "the ring's file");
            Path folder = file.getParent();
            assertEquals("rwx------", mode(folder), "the ring's folder: " + folder);
            assertEquals(Files.getAttribute(mine, "unix:uid"),
                    Files.getAttribute(folder, "unix:uid", LinkOption.NOFOLLOW_LINKS),
                    "the folder is this user's");
            for (String secret : new String[] {Long.toHexString(token), Long.toString(token),
                    Long.toUnsignedString(token)}) {
                assertFalse(file.toString().contains(secret), file + " tells " + secret);
            }
        }
        assertFalse(Files.exists(file));
    }

    /**
     * Issue 26, row 1: the receiver opens only its user's private ring files; a link planted
     * at the ring's path is refused, not followed, and so is a file others can read.
     */
    @Test
    void row1ALinkOrAFileOpenToOthersAtTheRingsPathIsRefused(@TempDir Path dir)
            throws Exception {
        long token = 0x0ddba11L;
        ShmRing.create(ShmRing.fileFor(token, 0, 1), 64).close(); // the folder, as senders make
        Path victim = dir.resolve("victim");
        Files.write(victim, new byte[4096]);
        Path ring = ShmRing.fileFor(token, 1, 0);
        Files.deleteIfExists(ring);
        try {
            Files.createSymbolicLink(ring, victim);
            assertThrows(IOException.class, () -> ShmRing.open(ring).close(),
                    "a link is followed");
            assertTrue(Files.isSymbolicLink(ring), "the link is left for the user to see");
            Files.delete(ring);
            Files.write(ring, new byte[4096]);
            Files.setPosixFilePermissions(ring, PosixFilePermissions.fromString("rw-r--r--"));
            IOException e = assertThrows(IOException.class, () -> ShmRing.open(ring).close(),
                    "a ring others can read is used");
            assertTrue(e.getMessage().contains("open to others"), e.getMessage());
        } finally {
            Files.deleteIfExists(ring);
        }
        assertTrue(Files.exists(victim), "the link's target is not deleted");
    }
}
