package dev.dml.ray.cluster;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * One frame of a stream: it ends where the frame's length says, and tells a connection that
 * closed inside the frame ({@link Closed}) from a reader that wanted more than the frame holds
 * (an end of stream, which the reader reports as a malformed frame).
 */
final class FrameInput extends InputStream {

    /** The connection closed inside a frame: the channel is gone, not just this frame. */
    static final class Closed extends EOFException {
        private static final long serialVersionUID = 1L;

        Closed(long left) {
            super("the connection closed " + left + " bytes into a frame");
        }
    }

    private final InputStream in;
    private long left;

    FrameInput(InputStream in, long length) {
        this.in = in;
        this.left = length;
    }

    /** The bytes of the frame not read yet. */
    long left() {
        return left;
    }

    @Override
    public int read() throws IOException {
        if (left == 0) {
            return -1;
        }
        int b = in.read();
        if (b < 0) {
            throw new Closed(left);
        }
        left--;
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (left == 0) {
            return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, left));
        if (n < 0) {
            throw new Closed(left);
        }
        left -= n;
        return n;
    }

    /** Reads past what is left of the frame, so that the stream is at the next one. */
    void skipRest() throws IOException {
        byte[] scratch = new byte[8192];
        while (left > 0) {
            read(scratch, 0, (int) Math.min(scratch.length, left));
        }
    }
}
