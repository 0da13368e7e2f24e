package dev.dml.ray.model;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Replaces a saved model's folder as a whole: the new files are written into a fresh folder
 * beside it ({@code .<name>.saving-<random>}), each forced to disk, and only then swapped in by
 * two renames: the old folder to {@code .<name>.previous}, the new one to its name. A full disk
 * or a crash while writing leaves the old save as it was; a crash between the two renames
 * leaves it whole under {@code .<name>.previous}, which {@link #whole} finds.
 */
public final class FolderSwap {

    private FolderSwap() {}

    /** Writes a save's files into a folder. */
    @FunctionalInterface
    public interface Contents {
        /**
         * Writes the files.
         *
         * @param folder the new, empty folder
         * @throws IOException when a file cannot be written
         */
        void writeInto(Path folder) throws IOException;
    }

    /**
     * Writes a save and swaps it in for the folder's old one.
     *
     * @param dir the folder; made if missing
     * @param names the files a save writes: a folder holding any other file is refused, as
     *     its replacement would delete that file
     * @param contents writes the files
     * @throws DmlException when the folder holds other files
     * @throws IOException when a file cannot be written (the old save is left as it was)
     */
    public static void replace(Path dir, Set<String> names, Contents contents)
            throws IOException {
        Path target = dir.toAbsolutePath().normalize();
        Path parent = Files.createDirectories(target.getParent());
        requireOnlySaves(target, names);
        Path staging = parent.resolve("." + target.getFileName() + ".saving-"
                + UUID.randomUUID());
        Path previous = previous(target);
        try {
            Files.createDirectory(staging);
            contents.writeInto(staging);
            try (Stream<Path> files = Files.list(staging)) {
                for (Path f : files.toList()) {
                    force(f);
                }
            }
            force(staging);
            if (Files.isDirectory(target)) {
                delete(previous); // an older interrupted swap's: the target is whole
                Files.move(target, previous, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            force(parent);
            delete(previous);
        } finally {
            if (!Files.exists(target) && Files.isDirectory(previous)) {
                Files.move(previous, target, StandardCopyOption.ATOMIC_MOVE); // put it back
            }
            try {
                delete(staging);
            } catch (IOException e) {
                // a stray hidden folder beside the save; the save itself is whole
            }
        }
    }

    /**
     * The folder that holds a whole save of {@code dir}: {@code dir} itself, or, after a crash
     * between the two renames of {@link #replace}, the previous save beside it.
     *
     * @param dir a saved model's folder
     * @param file a file every save writes
     * @return the folder to read
     */
    public static Path whole(Path dir, String file) {
        Path previous = previous(dir.toAbsolutePath().normalize());
        return !Files.exists(dir.resolve(file)) && Files.isRegularFile(previous.resolve(file))
                ? previous : dir;
    }

    private static Path previous(Path target) {
        return target.resolveSibling("." + target.getFileName() + ".previous");
    }

    private static void requireOnlySaves(Path target, Set<String> names) throws IOException {
        if (!Files.isDirectory(target)) {
            return;
        }
        List<String> others;
        try (Stream<Path> files = Files.list(target)) {
            others = files.map(p -> p.getFileName().toString())
                    .filter(n -> !names.contains(n)).sorted().toList();
        }
        if (!others.isEmpty()) {
            throw new DmlException("The folder " + DmlException.literal(target) + " holds "
                    + DmlException.literal(others) + ", which no model save wrote; a save"
                    + " replaces the whole folder.", "Save into a new folder, or into one"
                    + " that only an earlier save wrote.");
        }
    }

    /** Forces a file or folder to disk (a folder: its entries, so the renames survive). */
    private static void force(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (!Files.isDirectory(p)) {
                throw e; // some file systems cannot sync a folder; a file must be synced
            }
        }
    }

    private static void delete(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> all = Files.walk(p)) {
            for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(f);
                } catch (NoSuchFileException gone) {
                    // already gone
                }
            }
        }
    }
}
