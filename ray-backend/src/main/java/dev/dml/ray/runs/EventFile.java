package dev.dml.ray.runs;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * One TensorBoard event file, written as TensorFlow writes it: TFRecord framing (length, masked
 * CRC32C of the length, the {@code Event} bytes, masked CRC32C of those) around {@code Event}
 * protocol buffers, the first one naming the file's version. Each record is handed to the
 * operating system as it is written, so a process that dies loses at most the record it was
 * writing, which TensorBoard's reader skips.
 *
 * <p>Field numbers are those of {@code tensorboard/compat/proto/event.proto} and {@code
 * summary.proto}.
 */
final class EventFile implements AutoCloseable {

    /** What TensorFlow writes as the first event of every file. */
    static final String VERSION = "brain.Event:2";

    private static final int MASK_DELTA = 0xa282ead8;

    private final Path path;
    private final OutputStream out;

    private EventFile(Path path, OutputStream out) {
        this.path = path;
        this.out = out;
    }

    /**
     * Creates a new event file in {@code dir}, named as TensorBoard looks for it ({@code
     * events.out.tfevents.SECONDS.HOST}), and writes its version event.
     *
     * @param dir the run's folder; created when missing
     * @param host the host name to put in the file's name
     * @param wallSeconds the time of the version event
     * @return the open file, owned by the caller
     */
    static EventFile open(Path dir, String host, double wallSeconds) {
        Path path = dir.resolve("events.out.tfevents." + (long) wallSeconds + "." + host);
        try {
            Files.createDirectories(dir);
            EventFile file = new EventFile(path, Files.newOutputStream(path,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND));
            file.write(new ProtoWriter().float64(1, wallSeconds).string(3, VERSION));
            return file;
        } catch (IOException e) {
            throw cannotWrite(path, e);
        }
    }

    /** The file's path. */
    Path path() {
        return path;
    }

    /**
     * Writes one event with a scalar summary value per entry ({@code simple_value}).
     *
     * @param step the event's step
     * @param wallSeconds seconds since the epoch
     * @param scalars tag to value, in the order to write them
     */
    void scalars(long step, double wallSeconds, Map<String, Float> scalars) {
        ProtoWriter summary = new ProtoWriter();
        scalars.forEach((tag, value) -> summary.message(1,
                new ProtoWriter().string(1, tag).float32(2, value)));
        summary(step, wallSeconds, summary);
    }

    /**
     * Writes one event that carries a {@code Summary}.
     *
     * @param step the event's step
     * @param wallSeconds seconds since the epoch
     * @param summary the encoded {@code Summary} message
     */
    void summary(long step, double wallSeconds, ProtoWriter summary) {
        write(new ProtoWriter().float64(1, wallSeconds).varint(2, step).message(5, summary));
    }

    private synchronized void write(ProtoWriter event) {
        byte[] data = event.toByteArray();
        ByteBuffer head = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(data.length);
        head.putInt(maskedCrc(head.array(), 0, 8));
        ByteBuffer tail = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        tail.putInt(maskedCrc(data, 0, data.length));
        try {
            out.write(head.array());
            out.write(data);
            out.write(tail.array());
            out.flush();
        } catch (IOException e) {
            throw cannotWrite(path, e);
        }
    }

    /** TFRecord's checksum: CRC32C, rotated right by 15 bits, plus a constant. */
    static int maskedCrc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        int c = (int) crc.getValue();
        return ((c >>> 15) | (c << 17)) + MASK_DELTA;
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw cannotWrite(path, e);
        }
    }

    private static DmlException cannotWrite(Path path, IOException e) {
        return new DmlException("Cannot write the TensorBoard event file "
                + DmlException.literal(path) + ": " + DmlException.literal(e.getMessage())
                + ".", "Check that the run store's folder is writable and has space, or open"
                + " the run store in another folder.", e);
    }
}
