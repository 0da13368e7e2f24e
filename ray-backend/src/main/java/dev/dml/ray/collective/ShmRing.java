package dev.dml.ray.collective;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
 *
 * <p>The file lives in this user's private {@link RingFolder}, and its memory is claimed when
 * it is made: a full {@code /dev/shm} fails {@link #create} with an {@link IOException}, never a
 * later write (a write into a mapping tmpfs cannot back is a SIGBUS, which kills the JVM's
 * thread with an {@link InternalError}). {@link #close} unmaps at once, not when the buffer is
 * collected, so that a job that regroups does not pile up rings.
 */
final class ShmRing implements AutoCloseable {

    private static final int HEADER = 64; // the reader's position, alone on its cache line
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
            ByteOrder.nativeOrder());
    private static final int ZEROS = 1 << 20;
    private static final MethodHandle UNMAP = unmapper();

    /**
     * The receivers' rings by file, so that the receiving rank's transport can unmap them when
     * it closes: its endpoint's reader threads open them, and end on their own. Weak, so that
     * a ring opened after its transport closed still goes when its buffer is collected.
     */
    private static final Map<Path, WeakReference<ShmRing>> OPENED = new ConcurrentHashMap<>();

    private final Path file;
    private final MappedByteBuffer map;
    private final int capacity;
    private final boolean sender;
    private boolean closed;
    private long written;
    /** Where the sender last started over: nothing before it is still to be read. */
    private long floor;

    /** A ring over {@code map}: its header, then the ring's bytes. */
    private ShmRing(Path file, MappedByteBuffer map, boolean sender) {
        this.file = file;
        this.map = map;
        this.capacity = map.capacity() - HEADER;
        this.sender = sender;
    }

    /** The ring's file for a group's link from one rank to another (see {@link RingFolder}). */
    static Path fileFor(long token, int from, int to) {
        return RingFolder.fileFor(token, from, to);
    }

    /**
     * Checks that the ring folder is private to this user and has room, now, for {@code rings}
     * rings of {@code capacity} bytes.
     *
     * @throws IOException saying what is wrong and how to fix it
     */
    static void checkRoom(int capacity, int rings) throws IOException {
        RingFolder.checkRoom(HEADER + (long) capacity, rings);
    }

    /**
     * Makes the sender's side, readable by this user only, with all of its memory claimed;
     * the file is deleted when the receiver opens it, or at close.
     *
     * @param file where; its folder is made private to this user if missing
     * @param capacity the ring's size in bytes
     * @throws IOException where the folder is not private to this user, the file exists, or
     *     its file system has no room for the whole ring
     */
    static ShmRing create(Path file, int capacity) throws IOException {
        RingFolder.prepare(file.toAbsolutePath().getParent());
        long size = HEADER + (long) capacity;
        Set<OpenOption> how = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try (FileChannel ch = FileChannel.open(file, how,
                PosixFilePermissions.asFileAttribute(RingFolder.OWNER_ONLY_FILE))) {
            try {
                claim(ch, size);
            } catch (IOException e) {
                Files.deleteIfExists(file);
                throw new IOException(RingFolder.SHARED_MEMORY + " has no room left for a ring"
                        + " of " + (size >> 20) + " MB (" + e.getMessage() + "); give it more"
                        + " (docker run --shm-size=1g)", e);
            }
            try {
                return new ShmRing(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, size),
                        true);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(file);
                throw e;
            }
        }
    }

    /** Writes zeros through the whole file, so that tmpfs holds its pages now or says no. */
    private static void claim(FileChannel ch, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocate(ZEROS);
        for (long at = 0; at < size; ) {
            zeros.clear().limit((int) Math.min(ZEROS, size - at));
            while (zeros.hasRemaining()) {
                at += ch.write(zeros, at);
            }
        }
    }

    /**
     * Opens the receiver's side, and deletes the file: the two mappings keep the memory alive,
     * and nothing is left behind if either process dies. A link, a file open to others or
     * another user's file is refused: a sender of this user made the real one.
     */
    static ShmRing open(Path file) throws IOException {
        RingFolder.checkFolder(file.toAbsolutePath().getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            RingFolder.checkFile(file);
            long size = ch.size();
            if (size <= HEADER || size - HEADER > Integer.MAX_VALUE) {
                throw new IOException(file + " has " + size + " bytes; not a ring");
            }
            ShmRing ring = new ShmRing(file, ch.map(FileChannel.MapMode.READ_WRITE, 0, size),
                    false);
            Files.deleteIfExists(file);
            OPENED.values().removeIf(r -> r.get() == null);
            closeOpened(file);
            OPENED.put(file, new WeakReference<>(ring));
            return ring;
        }
    }

    /** Unmaps the receiver's ring opened from {@code file}, if there is one. */
    static void closeOpened(Path file) {
        WeakReference<ShmRing> ref = OPENED.remove(file);
        ShmRing ring = ref == null ? null : ref.get();
        if (ring != null) {
            ring.close();
        }
    }

    /**
     * Writes a payload into the ring, if there is room.
     *
     * @return its position, or -1 when the reader has not freed enough of the ring, or the
     *     ring is closed
     */
    synchronized long write(byte[] payload) {
        int len = payload.length;
        if (len > capacity || closed) {
            return -1;
        }
        long read = (long) LONGS.getAcquire(map, 0);
        long at = written;
        int offset = (int) (at % capacity);
        if (read == written && offset != 0) {
            // all read: start over at the ring's start, so that a job whose chunks are small
            // touches only the ring's first pages
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
     * @throws IOException where the ring is closed, or the bytes lie outside it
     */
    synchronized byte[] read(long position, int length) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        int offset = (int) (position % capacity);
        if (position < 0 || length < 0 || offset + length > capacity) {
            throw new IOException(length + " bytes at " + position + " lie outside a ring of "
                    + capacity);
        }
        byte[] out = new byte[length];
        map.get(HEADER + offset, out);
        LONGS.setRelease(map, 0, position + length);
        return out;
    }

    /**
     * Unmaps the ring, and deletes the file if the receiver never opened it; reads and writes
     * wait for it, and fail after.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (UNMAP != null) {
            try {
                UNMAP.invokeExact((ByteBuffer) map);
            } catch (Throwable e) {
                // then the mapping goes when the buffer is collected
            }
        }
        if (sender) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // tmpfs is cleared at reboot; a leftover file holds no one up
            }
        }
    }

    /** {@code Unsafe.invokeCleaner} (jdk.unsupported), the only way to unmap on JDK 17. */
    private static MethodHandle unmapper() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field f = unsafeClass.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return MethodHandles.lookup().findVirtual(unsafeClass, "invokeCleaner",
                    MethodType.methodType(void.class, ByteBuffer.class)).bindTo(f.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // mappings then go when their buffers are collected
        }
    }
}
