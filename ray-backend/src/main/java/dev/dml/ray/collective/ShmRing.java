package dev.dml.ray.collective;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A one-way ring of bytes in shared memory between two processes on one node: the sender
 * writes a payload into the ring and tells the receiver where over its TCP link, so the bulk of
 * a chunk skips the socket's two kernel copies (gloo's and NCCL's shared-memory transports do
 * the same for ranks that share a host).
 *
 * <p>Positions are absolute byte counts; the ring holds {@code position % capacity}. The
 * receiver publishes how far it has read in the header, and the sender writes only into what
 * was read: when the ring is full the payload goes inline over TCP instead, so a slow reader
 * never blocks a send. A payload is never split at the ring's end: the sender skips to its
 * start, as it does whenever everything was read.
 */
final class ShmRing implements AutoCloseable {

    /** Where rings live: a RAM file system on Linux. */
    static final Path DIRECTORY = Path.of("/dev/shm");

    private static final int HEADER = 64; // the reader's position, alone on its cache line
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());

    private final Path file;
    private final MappedByteBuffer map;
    private final int capacity;
    private long written;
    /** Where the sender last started over: nothing before it is still to be read. */
    private long floor;

    private ShmRing(Path file, MappedByteBuffer map, int capacity) {
        this.file = file;
        this.map = map;
        this.capacity = capacity;
    }

    /** The ring's file for a group's link from one rank to another. */
    static Path fileFor(long token, int from, int to) {
        return DIRECTORY.resolve("dml-" + Long.toHexString(token) + "-" + from + "-" + to);
    }

    /** True where rings can be made: the shared-memory directory exists and is writable. */
    static boolean available() {
        return Files.isDirectory(DIRECTORY) && Files.isWritable(DIRECTORY);
    }

    /**
     * Makes the sender's side; the file is deleted when the receiver opens it, or at close.
     *
     * @param file where
     * @param capacity the ring's size in bytes
     */
    static ShmRing create(Path file, int capacity) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            file.toFile().deleteOnExit();
            return new ShmRing(file, ch.map(FileChannel.MapMode.READ_WRITE, 0,
                    HEADER + (long) capacity), capacity);
        }
    }

    /**
     * Opens the receiver's side, and deletes the file: the two mappings keep the memory alive,
     * and nothing is left behind if either process dies.
     */
    static ShmRing open(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            int capacity = Math.toIntExact(ch.size() - HEADER);
            ShmRing ring = new ShmRing(file, ch.map(FileChannel.MapMode.READ_WRITE, 0,
                    ch.size()), capacity);
            Files.deleteIfExists(file);
            return ring;
        }
    }

    /**
     * Writes a payload into the ring, if there is room.
     *
     * @return its position, or -1 when the reader has not freed enough of the ring
     */
    long write(byte[] payload) {
        int len = payload.length;
        if (len > capacity) {
            return -1;
        }
        long read = (long) LONGS.getAcquire(map, 0);
        long at = written;
        int offset = (int) (at % capacity);
        if (read == written && offset != 0) {
            // all read: start over at the ring's start, so that a job whose chunks are small
            // touches (and the node pays for) only the ring's first pages
            at += capacity - offset;
            offset = 0;
            floor = at;
        } else if (offset + len > capacity) {
            at += capacity - offset; // never split a payload at the ring's end
            offset = 0;
        }
        if (at + len - Math.max(read, floor) > capacity) {
            return -1;
        }
        map.put(HEADER + offset, payload);
        written = at + len;
        return at;
    }

    /**
     * Reads the payload written at {@code position} and frees its bytes for the sender.
     *
     * @param position what {@link #write} returned
     * @param length the payload's length
     * @return a copy of it
     */
    byte[] read(long position, int length) {
        byte[] out = new byte[length];
        map.get(HEADER + (int) (position % capacity), out);
        LONGS.setRelease(map, 0, position + length);
        return out;
    }

    /** Deletes the file if the receiver never opened it; the mapping goes with the buffer. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // /dev/shm is cleared at reboot; a leftover file holds no one up
        }
    }
}
