package dev.dml.ray.data.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/**
 * A remote file read by byte ranges, as a seekable channel: each read that misses the buffer
 * fetches one range. Reads near the end fetch the whole tail at once (Parquet's and Arrow's
 * footers take two reads there); sequential reads double the read-ahead up to {@link
 * #MAX_AHEAD}, so a CSV streams in few requests while a row group's column chunk is one
 * request of its own size.
 */
final class RangedFile implements SeekableByteChannel {

    /** Fetches {@code length} bytes from {@code position}; exactly those, or throws. */
    @FunctionalInterface
    interface Ranges {
        byte[] read(long position, int length) throws IOException;
    }

    /** The tail fetched in one request when a read falls into it: footers fit. */
    static final int TAIL = 64 * 1024;
    static final int MIN_AHEAD = 16 * 1024;
    static final int MAX_AHEAD = 8 * 1024 * 1024;

    private final long size;
    private final Ranges ranges;
    private byte[] buffer = new byte[0];
    private long bufferStart;
    private long position;
    private int ahead = MIN_AHEAD;
    private boolean open = true;

    RangedFile(long size, Ranges ranges) {
        this.size = size;
        this.ranges = ranges;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        requireOpen();
        if (position >= size) {
            return -1;
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position < bufferStart || position >= bufferStart + buffer.length) {
            fill(dst.remaining());
        }
        int offset = (int) (position - bufferStart);
        int n = Math.min(dst.remaining(), buffer.length - offset);
        dst.put(buffer, offset, n);
        position += n;
        return n;
    }

    private void fill(int wanted) throws IOException {
        boolean sequential = position == bufferStart + buffer.length && buffer.length > 0;
        ahead = sequential ? Math.min(MAX_AHEAD, ahead * 2) : MIN_AHEAD;
        long from = position;
        long to = Math.min(size, position + Math.max(wanted, ahead));
        if (size - position <= TAIL) {
            from = Math.max(0, size - TAIL);
            to = size;
        }
        byte[] got = ranges.read(from, Math.toIntExact(to - from));
        if (got.length != to - from) {
            throw new EOFException("asked for " + (to - from) + " bytes at " + from + ", got "
                    + got.length);
        }
        buffer = got;
        bufferStart = from;
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public SeekableByteChannel position(long newPosition) {
        if (newPosition < 0) {
            throw new IllegalArgumentException("negative position " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public SeekableByteChannel truncate(long s) {
        throw new NonWritableChannelException();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        buffer = new byte[0];
    }

    private void requireOpen() throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
