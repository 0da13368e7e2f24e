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
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoint files: the training state of every stage of a model ({@code
 * ModelStage.saveState()}: parameters and optimizer state; one stage for a data-parallel job)
 * and the job's step, written atomically by the driver and checked on load.
 *
 * <p>A file {@code checkpoint-<step>.dml} holds the magic {@code DMLCKPT2}, the global step,
 * the steps per epoch, the number of stage states, each state's length and bytes, and a CRC32 of
 * everything before it. It is written to a temporary file in the same folder, forced to disk,
 * renamed over atomically, and the folder is forced too; so a crash leaves either the old set of
 * files or the new one. {@link #latest} skips a file that is truncated or fails its checksum,
 * with a logged warning, and falls back to the previous one. The newest {@value #KEEP} files are
 * kept.
 */
public final class Checkpoints {

    private static final Logger LOG = LoggerFactory.getLogger(Checkpoints.class);
    private static final byte[] MAGIC = "DMLCKPT2".getBytes(StandardCharsets.US_ASCII);
    private static final String PREFIX = "checkpoint-";
    private static final String SUFFIX = ".dml";
    private static final int HEADER = MAGIC.length + Long.BYTES + 2 * Integer.BYTES;
    /** How many checkpoint files are kept. */
    public static final int KEEP = 3;

    private Checkpoints() {}

    /**
     * A checkpoint read back from disk.
     *
     * @param file the file it was read from
     * @param step the number of steps the job had run when it was written
     * @param stepsPerEpoch the steps per epoch of the job that wrote it
     * @param states each stage's state, in stage order (not copies)
     */
    public record Checkpoint(Path file, long step, int stepsPerEpoch, List<byte[]> states) {}

    /**
     * Writes a checkpoint atomically and deletes all but the newest {@value #KEEP}.
     *
     * @param dir the folder; created if missing
     * @param step the global step
     * @param stepsPerEpoch the job's steps per epoch
     * @param states each stage's state, in stage order
     * @return the file written
     * @throws DmlException when the folder cannot be written
     */
    public static Path write(Path dir, long step, int stepsPerEpoch, List<byte[]> states) {
        Path file = dir.resolve(String.format("%s%012d%s", PREFIX, step, SUFFIX));
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(dir);
            long size = HEADER;
            for (byte[] s : states) {
                size += Integer.BYTES + s.length;
            }
            ByteBuffer head = ByteBuffer.allocate(HEADER);
            head.put(MAGIC).putLong(step).putInt(stepsPerEpoch).putInt(states.size()).flip();
            CRC32 crc = new CRC32();
            crc.update(head.duplicate());
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                writeFully(ch, head);
                for (byte[] s : states) {
                    ByteBuffer len = ByteBuffer.allocate(Integer.BYTES).putInt(s.length).flip();
                    crc.update(len.duplicate());
                    crc.update(s);
                    writeFully(ch, len);
                    writeFully(ch, ByteBuffer.wrap(s));
                }
                writeFully(ch, ByteBuffer.allocate(Long.BYTES).putLong(crc.getValue()).flip());
                ch.force(true);
            }
            LOG.debug("checkpoint {}: {} bytes", file, size);
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
            throw new DmlException("Cannot write checkpoint " + DmlException.literal(file)
                    + ": " + DmlException.literal(e) + ".",
                    "Pass a writable folder to {checkpoint-dir}, or free some disk space.", e);
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
     * @throws IOException when it is truncated, not a checkpoint, or fails its checksum
     */
    public static Checkpoint read(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        if (all.length < HEADER + Long.BYTES) {
            throw new IOException("truncated: " + all.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(all, 0, all.length - Long.BYTES);
        byte[] magic = new byte[MAGIC.length];
        b.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IOException("not a dml checkpoint of this version");
        }
        long step = b.getLong();
        int stepsPerEpoch = b.getInt();
        int count = b.getInt();
        List<byte[]> states = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int length = b.remaining() >= Integer.BYTES ? b.getInt() : -1;
            if (length < 0 || length > b.remaining()) {
                throw new IOException("truncated in stage state " + i);
            }
            byte[] s = new byte[length];
            b.get(s);
            states.add(s);
        }
        if (b.hasRemaining()) {
            throw new IOException("truncated: " + b.remaining() + " unexpected bytes");
        }
        CRC32 crc = new CRC32();
        crc.update(all, 0, all.length - Long.BYTES);
        long stored = ByteBuffer.wrap(all, all.length - Long.BYTES, Long.BYTES).getLong();
        if (stored != crc.getValue()) {
            throw new IOException("checksum mismatch");
        }
        return new Checkpoint(file, step, stepsPerEpoch, List.copyOf(states));
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
