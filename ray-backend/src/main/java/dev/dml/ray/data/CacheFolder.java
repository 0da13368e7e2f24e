package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;

/**
 * The folder of a {@link ShardCache}: made owner-only ({@code rwx------}) when missing, and
 * refused when another user owns it or others may write into it, since whoever can write there
 * decides what the workers train on.
 */
final class CacheFolder {

    private CacheFolder() {}

    /**
     * Makes the folder if missing and checks that it is this user's alone.
     *
     * @param dir the folder
     * @throws DmlException when it cannot be made, or is not private
     */
    static void prepare(Path dir) {
        boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
        try {
            if (!Files.isDirectory(dir)) {
                Path parent = dir.toAbsolutePath().getParent();
                Files.createDirectories(parent);
                try {
                    if (posix) {
                        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rwx------")));
                    } else {
                        Files.createDirectory(dir);
                    }
                } catch (FileAlreadyExistsException e) {
                    // another worker of the node made it first: checked below
                }
            }
            if (posix) {
                requirePrivate(dir);
            }
        } catch (IOException e) {
            throw new DmlException("Could not create the data cache folder "
                    + DmlException.literal(dir) + ": " + DmlException.literal(e.getMessage())
                    + ".", "Set {data-cache-mb=0} to read without a cache, or free the disk.",
                    e);
        }
    }

    private static void requirePrivate(Path dir) throws IOException {
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class);
        UserPrincipal me = myself();
        if (me != null && !a.owner().equals(me)) {
            throw new DmlException("The data cache folder " + DmlException.literal(dir)
                    + " belongs to " + a.owner().getName() + ", not to " + me.getName()
                    + ", the user the workers run as.", "Set DML_DATA_CACHE on the workers to"
                    + " a folder of your own, or {data-cache-mb=0} to read without a cache.");
        }
        if (a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                || a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new DmlException("The data cache folder " + DmlException.literal(dir)
                    + " can be written by other users (" + PosixFilePermissions.toString(
                            a.permissions()) + "), who could plant data in it.", "Run chmod"
                    + " 700 on it, or set DML_DATA_CACHE on the workers to a folder of your"
                    + " own.");
        }
    }

    /** The user this process runs as: the owner of {@code /proc/self}; null off Linux. */
    private static UserPrincipal myself() throws IOException {
        Path self = Path.of("/proc/self");
        return Files.exists(self) ? Files.getOwner(self) : null;
    }
}
