package dev.dml.ray.collective;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * Where a user's {@link ShmRing}s live: a folder in {@code /dev/shm} that only this user can
 * enter ({@code dml-<uid>}, mode 0700), holding files only this user can read (0600), named
 * after a hash of the group's token. {@code /dev/shm} itself is world-listable, and the token
 * is what a peer's endpoint checks: neither the ring's bytes (gradients) nor the token may be
 * seen by another local user.
 *
 * <p>Another user who made a folder of that name first cannot be told apart from an attack:
 * this user's rings are then refused, and its links carry everything over their sockets.
 */
final class RingFolder {

    /** The RAM file system that holds the folder, on Linux. */
    static final Path SHARED_MEMORY = Path.of("/dev/shm");

    static final Set<PosixFilePermission> OWNER_ONLY_FOLDER =
            PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> OWNER_ONLY_FILE =
            PosixFilePermissions.fromString("rw-------");

    private static final long MB = 1 << 20;

    private RingFolder() {
    }

    /** This user's folder; it may not exist yet. */
    static Path path() {
        return SHARED_MEMORY.resolve("dml-" + uid());
    }

    /**
     * The ring's file for a group's link from one rank to another: named by a hash of the
     * token, which tells no one the token.
     */
    static Path fileFor(long token, int from, int to) {
        return path().resolve("ring-" + tokenHash(token) + "-" + from + "-" + to);
    }

    /**
     * Makes a ring file's folder if it is missing, private to this user.
     *
     * @throws IOException if it cannot be made, or is not private to this user
     */
    static void prepare(Path folder) throws IOException {
        try {
            Files.createDirectory(folder,
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY_FOLDER));
        } catch (FileAlreadyExistsException e) {
            // made earlier, or by a peer on this node at the same time: checked below
        }
        checkFolder(folder);
    }

    /**
     * Checks that a folder is a real folder (not a link), this user's, and closed to others.
     *
     * @throws IOException saying which and how to fix it
     */
    static void checkFolder(Path folder) throws IOException {
        PosixFileAttributes a = attributes(folder);
        if (!a.isDirectory()) {
            throw new IOException(folder + " is not a folder; remove it");
        }
        checkOwnerOnly(folder, a, OWNER_ONLY_FOLDER);
    }

    /**
     * Checks an opened ring's file: a regular file (not a link), this user's, closed to
     * others; and its folder likewise.
     */
    static void checkFile(Path file) throws IOException {
        checkFolder(file.toAbsolutePath().getParent());
        PosixFileAttributes a = attributes(file);
        if (!a.isRegularFile()) {
            throw new IOException(file + " is not a regular file");
        }
        checkOwnerOnly(file, a, OWNER_ONLY_FILE);
    }

    /**
     * Checks that the folder can hold {@code rings} more rings of {@code bytes} each.
     *
     * @throws IOException saying what is missing and how to give more
     */
    static void checkRoom(long bytes, int rings) throws IOException {
        Path folder = path();
        prepare(folder);
        long free = Files.getFileStore(folder).getUsableSpace();
        long need = bytes * rings;
        if (free < need) {
            throw new IOException(SHARED_MEMORY + " has " + free / MB + " MB free and "
                    + (rings == 1 ? "a ring needs " : rings + " rings need ")
                    + Math.round(need / (double) MB) + " MB; give it more"
                    + " (docker run --shm-size=1g)");
        }
    }

    private static PosixFileAttributes attributes(Path p) throws IOException {
        return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    private static void checkOwnerOnly(Path p, PosixFileAttributes a,
            Set<PosixFilePermission> allowed) throws IOException {
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != uid()) {
            throw new IOException(p + " belongs to uid " + owner + ", not to this user (uid "
                    + uid() + "); remove it");
        }
        Set<PosixFilePermission> open = new HashSet<>(a.permissions());
        open.removeAll(allowed);
        if (!open.isEmpty()) {
            throw new IOException(p + " is open to others ("
                    + PosixFilePermissions.toString(a.permissions()) + "); remove it");
        }
    }

    /** This process's user id: the owner of the folder and of every ring in it. */
    static long uid() {
        return new com.sun.security.auth.module.UnixSystem().getUid();
    }

    private static String tokenHash(long token) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("dml ring ".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < Long.BYTES; i++) {
                sha.update((byte) (token >>> (8 * i)));
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
