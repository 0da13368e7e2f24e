package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.data.FileShard;
import dev.dml.ray.train.result.TrainResult;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, row 13: the Java-serialized bytes dml reads from a saved model's file ({@link
 * TrainResult#open}) and from Ray ({@link FileShard#fromBytes}) go through one filter, which
 * refuses, in one line and before anything is instantiated or allocated, a class that is not
 * one of dml's or the JDK's values, and an array longer than the stream could hold.
 */
class ForgedPayloadsTest {

    private static final int HUGE = Integer.MAX_VALUE - 16;

    private static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** A {@code long[1]} whose length field says {@link #HUGE}: 16 GiB if allocated. */
    private static byte[] hugeArray() throws IOException {
        byte[] b = serialize(new long[] {42});
        ByteBuffer.wrap(b).putInt(b.length - Long.BYTES - Integer.BYTES, HUGE);
        return b;
    }

    private static byte[] shardBytes(byte[] stream) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("DMLFILESHARD1".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(stream);
        return out.toByteArray();
    }

    @Test
    void row13ForgedSavedModelsAndShardsAreRefusedInOneLine(@TempDir Path dir)
            throws IOException {
        Files.write(dir.resolve("dml-result.ser"), hugeArray());
        DmlException e = assertThrows(DmlException.class, () -> TrainResult.open(dir));
        assertEquals("Could not read the model in " + dir + ": refused an array of " + HUGE
                + " elements in a stream of " + hugeArray().length + " bytes (filter status:"
                + " REJECTED).", e.what());

        Files.write(dir.resolve("dml-result.ser"), serialize(new File("/etc/passwd")));
        e = assertThrows(DmlException.class, () -> TrainResult.open(dir));
        assertTrue(e.what().endsWith(": refused class java.io.File, which is not one of dml's"
                + " or the JDK's values (filter status: REJECTED)."), e.what());

        byte[] shard = shardBytes(serialize(new File("/etc/passwd")));
        assertTrue(FileShard.isFileShard(shard));
        e = assertThrows(DmlException.class, () -> FileShard.fromBytes(shard));
        assertEquals("Could not read the file shard sent to this worker: refused class"
                + " java.io.File, which is not one of dml's or the JDK's values (filter"
                + " status: REJECTED).", e.what());
        assertEquals("Run the kernel and the workers with the same dml version.", e.hint());

        e = assertThrows(DmlException.class, () -> FileShard.fromBytes(shardBytes(
                hugeArray())));
        assertTrue(e.what().contains("refused an array of " + HUGE + " elements"), e.what());
    }
}
