package dev.dml.ray.train;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint files: the replica's state ({@code TrainingReplica.saveState()}: parameters and
 * optimizer state) and the job's step, written atomically and checked on load.
 *
 * <p>A file {@code checkpoint-<step>.dml} holds the magic {@code DMLCKPT1}, the global step, the
 * steps per epoch, the state's length, the state, and a CRC32 of everything before it. It is
 * written to a temporary file in the same folder, forced to disk, renamed over atomically, and
 * the folder is forced too; so a crash leaves either the old set of files or the new one. {@link
 * #latest} skips a file that is truncated or fails its checksum, with a logged warning, and
 * falls back to the previous one. The newest {@value #KEEP} files are kept.
 */
public final class Checkpoints {

    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
    private static final byte[] MAGIC = "DMLCKPT1".getBytes(StandardCharsets.US_ASCII);
    private static final String PREFIX = "checkpoint-";
    private static final String SUFFIX = ".dml";
    private static final int HEADER = MAGIC.length + Long.BYTES + 2 * Integer.BYTES;
    /** How many checkpoint files are kept. */
    public static final int KEEP = 3;

    private Checkpoints() {}

    /** A checkpoint read back from disk. */
    public static final class Checkpoint {
        private final Path file;
        private final long step;
        private final int stepsPerEpoch;
        private final byte[] state;

        Checkpoint(Path file, long step, int stepsPerEpoch, byte[] state) {
            this.file = file;
            this.step = step;
            this.stepsPerEpoch = stepsPerEpoch;
            this.state = state;
        }

        /**
         * Returns the file it was read from.
         *
         * @return the file
         */
        public Path file() {
            return file;
        }

        /**
         * Returns the number of steps the job had run when it was written.
         *
         * @return the global step
         */
        public long step() {
            return step;
        }

        /**
         * Returns the steps per epoch of the job that wrote it.
         *
         * @return steps per epoch
         */
        public int stepsPerEpoch() {
            return stepsPerEpoch;
        }

        /**
         * Returns the replica state, for {@code TrainingReplica.loadState}.
         *
         * @return the state bytes (not a copy)
         */
        public byte[] state() {
            return state;
        }
    }

    /**
     * Writes a checkpoint atomically and deletes all but the newest {@value #KEEP}.
     *
     * @param dir the folder; created if missing
     * @param step the global step
     * @param stepsPerEpoch the job's steps per epoch
     * @param state the replica state
     * @return the file written
     * @throws DmlException when the folder cannot be written
     */
    public static Path write(Path dir, long step, int stepsPerEpoch, byte[] state) {
        Path file = dir.resolve(String.format("%s%012d%s", PREFIX, step, SUFFIX));
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(dir);
            ByteBuffer head = ByteBuffer.allocate(HEADER);
            head.put(MAGIC).putLong(step).putInt(stepsPerEpoch).putInt(state.length).flip();
            CRC32 crc = new CRC32();
            crc.update(head.duplicate());
            crc.update(state);
            ByteBuffer tail = ByteBuffer.allocate(Long.BYTES).putLong(crc.getValue()).flip();
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                writeFully(ch, head);
                writeFully(ch, ByteBuffer.wrap(state));
                writeFully(ch, tail);
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            forceDir(dir);
            List<Path> all = list(dir);
            for (int i = KEEP; i < all.size(); i++) {
                Files.deleteIfExists(all.get(i));
            }
            return file;
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // best effort
            }
            throw new DmlException("Cannot write checkpoint " + file + ": " + e + ".",
                    "Pass a writable folder that every worker can reach to"
                            + " TrainSpec.builder().optCheckpoints, or free some disk space.", e);
        }
    }

    /**
     * Returns the newest checkpoint that reads back intact; a damaged newer file is skipped
     * with a warning in the log.
     *
     * @param dir the folder
     * @return the checkpoint, or {@code null} when there is none (or no folder)
     */
    public static Checkpoint latest(Path dir) {
        List<Path> files;
        try {
            files = list(dir);
        } catch (IOException e) {
            return null;
        }
        for (Path f : files) {
            try {
                return read(f);
            } catch (IOException | RuntimeException e) {
                LOG.warn("Skipping damaged checkpoint {}: {}; trying the previous one.", f,
                        e.getMessage());
            }
        }
        return null;
    }

    /**
     * Reads and checks one checkpoint file.
     *
     * @param file the file
     * @return the checkpoint
     * @throws IOException when it cannot be read, is truncated, or fails its checksum
     */
    public static Checkpoint read(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        if (all.length < HEADER + Long.BYTES) {
            throw new IOException("truncated: " + all.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(all);
        byte[] magic = new byte[MAGIC.length];
        b.get(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new IOException("not a dml checkpoint");
        }
        long step = b.getLong();
        int stepsPerEpoch = b.getInt();
        int length = b.getInt();
        if (length < 0 || all.length != HEADER + length + Long.BYTES) {
            throw new IOException("truncated: " + all.length + " bytes, expected "
                    + ((long) HEADER + length + Long.BYTES));
        }
        CRC32 crc = new CRC32();
        crc.update(all, 0, HEADER + length);
        long stored = ByteBuffer.wrap(all, HEADER + length, Long.BYTES).getLong();
        if (stored != crc.getValue()) {
            throw new IOException("checksum mismatch");
        }
        byte[] state = java.util.Arrays.copyOfRange(all, HEADER, HEADER + length);
        return new Checkpoint(file, step, stepsPerEpoch, state);
    }

    /** The checkpoint files of a folder, newest (highest step) first. */
    static List<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> out = s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(PREFIX) && n.endsWith(SUFFIX);
            }).collect(Collectors.toCollection(ArrayList::new));
            out.sort(Comparator.comparing((Path p) -> p.getFileName().toString()).reversed());
            return out;
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private static void forceDir(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            // some file systems cannot sync a folder; the rename is still atomic
        }
    }
}
