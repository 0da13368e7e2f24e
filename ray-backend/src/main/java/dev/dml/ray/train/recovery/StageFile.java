package dev.dml.ray.train.recovery;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * A stage's state that its worker wrote into a file of its own beside a checkpoint (the shared
 * checkpoint store), and the checkpoint's record of it: name, length and CRC32. Crosses Ray
 * (Ray's serializer rejects records), so a plain Serializable class.
 */
public final class StageFile implements Serializable {
    private static final long serialVersionUID = 1L;
    /** What follows a checkpoint's name, less {@code .dml}, in its stage files' names. */
    static final String SUFFIX = ".stage";
    private static final Pattern NAME = Pattern.compile("ckpt-r\\d+-s\\d+\\.stage\\d+");

    private final String name;
    private final long length;
    private final long crc;

    /**
     * A stage file's record.
     *
     * @param name the file's name in the checkpoint's folder (or, handed to a worker to read,
     *     its path)
     * @param length its length
     * @param crc its CRC32
     */
    public StageFile(String name, long length, long crc) {
        this.name = name;
        this.length = length;
        this.crc = crc;
    }

    /** @return the file's name or path */
    public String name() {
        return name;
    }

    /** @return its length */
    public long length() {
        return length;
    }

    /** @return its CRC32 */
    public long crc() {
        return crc;
    }

    /** The name of stage {@code stage}'s file of the checkpoint of {@code run} at {@code step}. */
    public static String fileName(int run, long step, int stage) {
        return Checkpoints.name(run, step).replace(".dml", SUFFIX + stage);
    }

    /**
     * The stage file a checkpoint names, beside it: only a name of the form dml writes, never
     * a path ({@code ..}, absolute) nor a link, so a crafted checkpoint cannot make the workers
     * read (or, resumed and pruned, delete) a file outside its folder.
     *
     * @param checkpoint the checkpoint's file
     * @param name the stage file's name in it
     * @return its path
     * @throws DmlException when the name is not one dml writes, or is a link
     */
    public static Path beside(Path checkpoint, String name) {
        Path folder = checkpoint.toAbsolutePath().getParent();
        Path p = NAME.matcher(name).matches() ? folder.resolve(name) : null;
        if (p == null || !p.getParent().equals(folder) || Files.isSymbolicLink(p)) {
            throw new DmlException("Checkpoint " + DmlException.literal(checkpoint) + " names"
                    + " the stage file " + DmlException.literal("'" + name + "'") + ", which"
                    + " is not a file dml writes beside it.", "Delete that checkpoint: dml did"
                    + " not write it, or it was altered.");
        }
        return p;
    }

    /**
     * Reads the stage file at {@code file} and checks it against this record.
     *
     * @param file the stage file
     * @return its bytes
     * @throws DmlException when it is missing, or its length or checksum differ
     */
    public byte[] read(Path file) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new DmlException("Cannot read checkpoint file " + DmlException.literal(file)
                    + " on this node: " + DmlException.literal(e) + ".", "With {checkpoint-store}"
                    + " shared, mount {checkpoint-dir} at the same path on every node.", e);
        }
        if (b.length != length || checksum(b) != crc) {
            throw new DmlException("Checkpoint file " + DmlException.literal(file)
                    + " is damaged: its length or checksum differ from its checkpoint's.",
                    "Delete that checkpoint to resume from the one before.");
        }
        return b;
    }

    /**
     * Writes a stage's state into its own file, atomically.
     *
     * @param file where
     * @param state the state
     * @return the record the checkpoint keeps of it
     * @throws DmlException when the folder cannot be written
     */
    public static StageFile write(Path file, byte[] state) {
        try {
            Checkpoints.atomically(file, List.of(ByteBuffer.wrap(state)));
        } catch (IOException e) {
            throw new DmlException("Cannot write " + DmlException.literal(file) + " on this"
                    + " node: " + DmlException.literal(e) + ".", "Free space in"
                    + " {checkpoint-dir}, or check that every node can write to it.", e);
        }
        return new StageFile(file.getFileName().toString(), state.length, checksum(state));
    }

    private static long checksum(byte[] b) {
        CRC32 crc = new CRC32();
        crc.update(b);
        return crc.getValue();
    }
}
