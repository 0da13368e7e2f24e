package dev.dml.ray.cluster;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream into an array of a size known in advance ({@link #count}ed in a first pass):
 * it refuses to write past the end, and {@link #filled} refuses an array not written to its end.
 */
final class ExactArray extends OutputStream {

    /** Thrown when the bytes written do not match the size the array was made for. */
    static final class Mismatch extends IOException {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message);
        }
    }

    private final byte[] bytes;
    private int size;

    ExactArray(long length) throws IOException {
        if (length > Integer.MAX_VALUE - 64) {
            throw new IOException("a payload of " + length + " bytes, over the 2 GB a Java"
                    + " array holds");
        }
        this.bytes = new byte[(int) length];
    }

    /** How many bytes {@code o} Java-serializes to. */
    static long count(Object o) throws IOException {
        Counter counter = new Counter();
        DriverChannel.write(o, counter);
        return counter.bytes;
    }

    @Override
    public void write(int b) throws IOException {
        room(1);
        bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        room(len);
        System.arraycopy(b, off, bytes, size, len);
        size += len;
    }

    /** The array, once written to its end. */
    byte[] filled() throws Mismatch {
        if (size != bytes.length) {
            throw new Mismatch(size + " bytes written into an array of " + bytes.length);
        }
        return bytes;
    }

    private void room(int len) throws Mismatch {
        if (len > bytes.length - size) {
            throw new Mismatch("more than the " + bytes.length + " bytes counted");
        }
    }

    /** Counts what is written to it and keeps nothing. */
    private static final class Counter extends OutputStream {
        private long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }
}
