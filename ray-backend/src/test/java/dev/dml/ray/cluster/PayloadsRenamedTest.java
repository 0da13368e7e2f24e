package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dml.options.PipelineSchedule;
import dev.dml.ray.train.settings.Strategy;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Classes that moved package still read from streams written before the move (a saved model's
 * {@code dml-result.ser} names its classes): the stream's old name, nested classes included,
 * resolves to the class's new package.
 */
class PayloadsRenamedTest {

    private static final String NOW = "dev.dml.ray.train.settings.Strategy";
    private static final String BEFORE = "dev.dml.ray.train.Strategy";

    @Test
    void aStrategyWrittenUnderItsOldPackageReadsAsTheMovedClass() throws Exception {
        Strategy pipeline = Strategy.pipeline(2, 4, PipelineSchedule.ONE_F_ONE_B);
        byte[] old = renamed(serialize(pipeline), NOW + "$Staged", BEFORE + "$Staged");
        assertEquals(-1, indexOf(old, utf(NOW + "$Staged")), "the new name is still there");

        Object read = Payloads.read(old, 0, old.length);

        assertEquals(Strategy.Staged.class, read.getClass());
        assertEquals(pipeline.toString(), read.toString());
    }

    @Test
    void namesOutsideTheMovedClassesStayAsTheyAre() {
        assertEquals(NOW + "$Staged", Payloads.renamed(BEFORE + "$Staged"));
        assertEquals("dev.dml.ray.train.result.TrainResult",
                Payloads.renamed("dev.dml.ray.train.TrainResult"));
        assertEquals("dev.dml.ray.train.TrainSpec",
                Payloads.renamed("dev.dml.ray.train.TrainSpec"));
        assertEquals("dev.dml.ray.train.StrategyX",
                Payloads.renamed("dev.dml.ray.train.StrategyX"));
    }

    private static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** A class name as the stream writes it: its length, then its bytes (modified UTF-8). */
    private static byte[] utf(String s) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new DataOutputStream(bytes).writeUTF(s);
        return bytes.toByteArray();
    }

    /** The stream with one class name written as another, as an older dml wrote it. */
    private static byte[] renamed(byte[] stream, String from, String to) throws IOException {
        byte[] a = utf(from);
        int at = indexOf(stream, a);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(stream, 0, at);
        out.write(utf(to));
        out.write(stream, at + a.length, stream.length - at - a.length);
        return out.toByteArray();
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
