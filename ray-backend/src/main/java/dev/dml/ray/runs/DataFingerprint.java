package dev.dml.ray.runs;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * A content hash of a table, so two runs on "the same" table can be told apart when a value
 * changed: SHA-256 over each column's name, type and values (numbers as doubles, others as
 * their text), shortened to 32 hex digits. It reads every value once.
 */
final class DataFingerprint {

    private DataFingerprint() {}

    /**
     * Hashes a table's content.
     *
     * @param table the table
     * @return 32 hex digits
     */
    static String of(Table table) {
        MessageDigest sha = sha256();
        ByteBuffer buf = ByteBuffer.allocate(8192);
        for (Column<?> c : table.columns()) {
            text(sha, buf, c.name());
            text(sha, buf, c.type().name());
            boolean numeric = c instanceof NumericColumn<?>;
            for (int i = 0; i < c.size(); i++) {
                if (numeric) {
                    room(sha, buf, 8);
                    buf.putDouble(((NumericColumn<?>) c).getDouble(i));
                } else {
                    text(sha, buf, c.getString(i));
                }
            }
        }
        buf.flip();
        sha.update(buf);
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    /** Length-prefixed, so "ab","c" and "a","bc" differ. */
    private static void text(MessageDigest sha, ByteBuffer buf, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        room(sha, buf, 4);
        buf.putInt(b.length);
        buf.flip();
        sha.update(buf);
        buf.clear();
        sha.update(b);
    }

    private static void room(MessageDigest sha, ByteBuffer buf, int bytes) {
        if (buf.remaining() < bytes) {
            buf.flip();
            sha.update(buf);
            buf.clear();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
