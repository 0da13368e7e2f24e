package dev.dml.ray.train.recovery;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * Checkpoint files: a job's step and the training state of every stage of its model ({@code
 * ModelStage.saveState()}: parameters and optimizer state; one stage for a data-parallel job),
 * written atomically and checked on load.
 *
 * <p>A file {@code ckpt-r<run>-s<step>.dml} holds the magic {@code DMLCKPT3}, the run (each
 * start of a job in a folder is a new run), the global step, the steps per epoch, the model's
 * fingerprint and its description, then either each stage's state inline (the driver store)
 * or, for each stage, the name, length and CRC32 of a file {@code ckpt-r<run>-s<step>.stage<i>}
 * beside it that the stage's rank 0 wrote (the shared store); and last a CRC32 of everything
 * before it. Files are ordered by run, then step: a new run's first checkpoint is newer than
 * any of an older run, however far that one went. Each file is written to a temporary file in
 * the same folder, forced to disk, renamed over atomically, and the folder is forced too; a
 * crash leaves either the old set of files or the new one.
 */
public final class Checkpoints {

    private static final byte[] MAGIC = "DMLCKPT3".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern NAME = Pattern.compile("ckpt-r(\\d+)-s(\\d+)\\.dml");

    private Checkpoints() {}

    /**
     * What a checkpoint's header says.
     *
     * @param file the file
     * @param run the run that wrote it
     * @param step the number of steps the job had run
     * @param stepsPerEpoch the steps per epoch of the job that wrote it
     * @param fingerprint the model's fingerprint
     * @param description the model in words, for messages
     */
    public record Header(Path file, int run, long step, int stepsPerEpoch, String fingerprint,
            String description) {}

    /**
     * A checkpoint read back: its header and either the states or the stage files.
     *
     * @param header what the header says
     * @param states each stage's state, in stage order; empty when in stage files
     * @param files each stage's file, in stage order; empty when inline
     */
    public record Checkpoint(Header header, List<byte[]> states, List<StageFile> files) {

        /** @return the step it was taken at */
        public long step() {
            return header.step();
        }
    }

    /** The name of the checkpoint of {@code run} at {@code step}. */
    public static String name(int run, long step) {
        return String.format("ckpt-r%04d-s%012d.dml", run, step);
    }

    /**
     * Writes a checkpoint atomically.
     *
     * @param dir the folder; created if missing
     * @param h the header (its file is ignored: the name comes from run and step)
     * @param states each stage's state inline, or empty
     * @param files each stage's file, or empty
     * @return the file written
     * @throws IOException when the folder cannot be written (a full disk, say)
     */
    public static Path write(Path dir, Header h, List<byte[]> states, List<StageFile> files)
            throws IOException {
        Path file = dir.resolve(name(h.run(), h.step()));
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(head)) {
            out.write(MAGIC);
            out.writeInt(h.run());
            out.writeLong(h.step());
            out.writeInt(h.stepsPerEpoch());
            out.writeUTF(h.fingerprint());
            out.writeUTF(h.description());
            out.writeBoolean(!files.isEmpty());
            out.writeInt(files.isEmpty() ? states.size() : files.size());
            for (StageFile f : files) {
                out.writeUTF(f.name());
                out.writeLong(f.length());
                out.writeLong(f.crc());
            }
        }
        List<ByteBuffer> parts = new ArrayList<>(List.of(ByteBuffer.wrap(head.toByteArray())));
        for (byte[] s : states) {
            parts.add(ByteBuffer.allocate(Integer.BYTES).putInt(s.length).flip());
            parts.add(ByteBuffer.wrap(s));
        }
        CRC32 crc = new CRC32();
        parts.forEach(p -> crc.update(p.duplicate()));
        parts.add(ByteBuffer.allocate(Long.BYTES).putLong(crc.getValue()).flip());
        atomically(file, parts);
        return file;
    }

    /**
     * Writes bytes to a file atomically: a temporary file beside it, forced, renamed over.
     *
     * @param file the file
     * @param parts its bytes, in order
     * @throws IOException when the folder cannot be written
     */
    static void atomically(Path file, List<ByteBuffer> parts) throws IOException {
        Path dir = file.getParent();
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(dir);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                for (ByteBuffer b : parts) {
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
                ch.force(true);
            } catch (IOException | RuntimeException e) {
                // some file systems cannot sync a folder; the rename is still atomic
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Reads only a checkpoint's header, to tell whose it is without loading its states.
     *
     * @param file the file
     * @return the header
     * @throws IOException when it is not a checkpoint of this version
     */
    public static Header header(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            return header(file, new DataInputStream(in));
        }
    }

    private static Header header(Path file, DataInputStream in) throws IOException {
        byte[] magic = in.readNBytes(MAGIC.length);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IOException("not a dml checkpoint of this version");
        }
        return new Header(file, in.readInt(), in.readLong(), in.readInt(), in.readUTF(),
                in.readUTF());
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
        if (all.length < MAGIC.length + Long.BYTES) {
            throw new IOException("truncated: " + all.length + " bytes");
        }
        CRC32 crc = new CRC32();
        crc.update(all, 0, all.length - Long.BYTES);
        if (ByteBuffer.wrap(all, all.length - Long.BYTES, Long.BYTES).getLong()
                != crc.getValue()) {
            throw new IOException("checksum mismatch (truncated or damaged)");
        }
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(all, 0,
                all.length - Long.BYTES));
        Header h = header(file, in);
        boolean inFiles = in.readBoolean();
        int count = in.readInt();
        List<byte[]> states = new ArrayList<>();
        List<StageFile> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (inFiles) {
                files.add(new StageFile(in.readUTF(), in.readLong(), in.readLong()));
            } else {
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    throw new IOException("truncated in stage state " + i);
                }
                states.add(in.readNBytes(length));
            }
        }
        if (in.available() > 0) {
            throw new IOException(in.available() + " unexpected bytes");
        }
        for (StageFile f : files) {
            StageFile.beside(file, f.name());
        }
        return new Checkpoint(h, List.copyOf(states), List.copyOf(files));
    }

    /**
     * The checkpoint files of a folder, newest first: by run, then by step.
     *
     * @param dir the folder
     * @return the files; none when the folder does not exist
     * @throws IOException when the folder cannot be listed
     */
    public static List<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                    .sorted(NEWEST_FIRST).toList();
        }
    }

    /** A checkpoint name's run and step. */
    private static long[] order(Path p) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        m.matches();
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    private static final Comparator<Path> NEWEST_FIRST = Comparator
            .comparingLong((Path p) -> order(p)[0]).thenComparingLong(p -> order(p)[1])
            .reversed();

    /**
     * The highest run a folder's files name.
     *
     * @param dir the folder
     * @return the run, 0 when there is none
     */
    public static int lastRun(Path dir) throws IOException {
        int run = 0;
        for (Path p : list(dir)) {
            Matcher m = NAME.matcher(p.getFileName().toString());
            m.matches();
            run = Math.max(run, Integer.parseInt(m.group(1)));
        }
        return run;
    }

    /**
     * Deletes all but the newest {@code keep} checkpoints of a folder, their stage files with
     * them, and stage files older than the oldest kept checkpoint (left by a failed write).
     *
     * @param dir the folder, one job's
     * @param keep how many to keep
     */
    public static void prune(Path dir, int keep) throws IOException {
        List<Path> all = list(dir);
        for (Path p : all.subList(Math.min(keep, all.size()), all.size())) {
            Files.deleteIfExists(p);
        }
        if (all.isEmpty()) {
            return;
        }
        Path oldest = all.get(Math.min(keep, all.size()) - 1);
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                String n = p.getFileName().toString();
                int at = n.indexOf(StageFile.SUFFIX);
                if (at > 0 && NAME.matcher(n.substring(0, at) + ".dml").matches()
                        && NEWEST_FIRST.compare(dir.resolve(n.substring(0, at) + ".dml"),
                                oldest) > 0) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
