package dev.dml.ray.net;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * Checks on what a peer sends: tokens compared in constant time, and lengths checked against a
 * cap before anything is allocated for them.
 */
public final class Frames {

    /** Bytes read at a time, so that a frame's claimed length is never allocated up front. */
    private static final int READ_CHUNK = 1 << 20;

    private Frames() {}

    /**
     * Whether a presented token is the expected one, in constant time: how far a guess matched
     * must not show in how long the check took.
     *
     * @param given the bytes the peer sent
     * @param expected the token
     * @return true when they are equal
     */
    public static boolean sameToken(byte[] given, byte[] expected) {
        return MessageDigest.isEqual(given, expected);
    }

    /**
     * A {@code long} token as the 8 bytes a peer sends it in.
     *
     * @param token the token
     * @return its big-endian bytes
     */
    public static byte[] bytes(long token) {
        return ByteBuffer.allocate(Long.BYTES).putLong(token).array();
    }

    /**
     * Refuses a length prefix outside {@code [0, max]}.
     *
     * @param length the claimed length
     * @param max the longest accepted here
     * @param what what the frame is, for the message
     * @return {@code length}
     * @throws IOException naming the length and the cap
     */
    public static int checkLength(int length, int max, String what) throws IOException {
        if (length < 0 || length > max) {
            throw new IOException(what + " of " + length + " bytes, outside the 0 to " + max
                    + " accepted here");
        }
        return length;
    }

    /**
     * Reads {@code length} bytes, growing the buffer as they come: a peer that claims a large
     * frame and sends nothing costs no memory. The buffer doubles up to {@code length} and no
     * further, and is returned as it is: a large frame (a job's shards) is held once, not in a
     * growing buffer and then a copy of it.
     *
     * @param in the stream
     * @param length how many bytes, already checked
     * @return the bytes
     * @throws EOFException when the stream ends first
     */
    public static byte[] read(InputStream in, int length) throws IOException {
        byte[] b = new byte[Math.min(length, READ_CHUNK)];
        int have = 0;
        while (have < length) {
            if (have == b.length) {
                b = Arrays.copyOf(b, (int) Math.min(length, 2L * b.length));
            }
            int n = in.read(b, have, b.length - have);
            if (n < 0) {
                throw new EOFException("the connection closed " + (length - have)
                        + " bytes into a frame");
            }
            have += n;
        }
        return b;
    }
}
