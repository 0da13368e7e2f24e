package dev.dml.ray.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whole tensors dealt to servers by size, and partitions that put back what they took. */
class ServerPartitionsTest {

    /** An MLP 784-64-10: weights 64x784 and 10x64, biases 64 and 10. */
    private static final List<long[]> MLP = List.of(new long[] {64, 784}, new long[] {64},
            new long[] {10, 64}, new long[] {10});

    @Test
    void theLargestTensorGoesAloneAndTheRestShareTheOtherServer() {
        ServerPartitions s = ServerPartitions.of(MLP, 2);
        assertEquals(64 * 784 + 64 + 640 + 10, s.total());
        assertEquals(64 * 784, s.size(0));
        assertEquals(64 + 640 + 10, s.size(1));
    }

    @Test
    void fourTensorsOnThreeServersLeaveNoServerEmpty() {
        ServerPartitions s = ServerPartitions.of(MLP, 3);
        for (int k = 0; k < 3; k++) {
            assertTrue(s.size(k) > 0, "server " + k);
        }
        assertEquals(s.total(), s.size(0) + s.size(1) + s.size(2));
    }

    @Test
    void gatherThenScatterRestoresTheFlatVector() {
        ServerPartitions s = ServerPartitions.of(MLP, 3);
        float[] flat = new float[s.total()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = i;
        }
        float[] back = new float[flat.length];
        for (int k = 0; k < 3; k++) {
            s.scatter(s.gather(flat, k), k, back);
        }
        assertArrayEquals(flat, back);
    }

    @Test
    void moreServersThanTensorsIsRefusedInOneLine() {
        DmlException e = assertThrows(DmlException.class, () -> ServerPartitions.of(MLP, 5));
        assertEquals("--ps 5 asks for 5 parameter servers, but the model has 4 parameter"
                + " tensors to deal among them.", e.speaking(Vocabulary.NOTEBOOK).what());
    }
}
