package dev.dml.ray.ps;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A server's partition: changes add up as they come, and the staleness gate holds the fastest. */
class PartitionStateTest {

    @Test
    void asyncAddsEveryChangeAndAnswersAtOnce() {
        PartitionState s = new PartitionState();
        s.seed(new float[] {1, 2}, 0, 2, -1, 10_000);
        assertArrayEquals(new float[] {1.5f, 2}, s.pushPull(0, 1, new float[] {0.5f, 0}));
        // client 0 runs 5 steps ahead of client 1, which never pushed: nothing waits
        assertArrayEquals(new float[] {1.5f, 3}, s.pushPull(0, 5, new float[] {0, 1}));
        assertArrayEquals(new float[] {1.5f, 2}, s.pushPull(1, 1, new float[] {0, -1}));
    }

    @Test
    void sspHoldsAClientMoreThanSStepsAheadUntilTheSlowestCatchesUp() throws Exception {
        PartitionState s = new PartitionState();
        s.seed(new float[] {0}, 0, 2, 1, 10_000);
        s.pushPull(0, 1, new float[] {1}); // one step ahead of client 1: within S = 1
        CompletableFuture<float[]> ahead = CompletableFuture.supplyAsync(
                () -> s.pushPull(0, 2, new float[] {1}));
        Thread.sleep(300);
        assertFalse(ahead.isDone(), "two steps ahead of the slowest waits");
        s.pushPull(1, 1, new float[] {10});
        assertArrayEquals(new float[] {12}, ahead.get(5, TimeUnit.SECONDS),
                "it goes on with the slowest's change in");
    }

    @Test
    void anAbortEndsTheWaitWithAnError() throws Exception {
        PartitionState s = new PartitionState();
        s.seed(new float[] {0}, 0, 2, 0, 10_000);
        CompletableFuture<float[]> waiting = CompletableFuture.supplyAsync(
                () -> s.pushPull(0, 1, new float[] {1}));
        Thread.sleep(200);
        s.abort("rank 1 was lost");
        Exception e = assertThrows(Exception.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof DmlException d
                && d.what().contains("rank 1 was lost"), String.valueOf(e.getCause()));
        s.seed(new float[] {0}, 0, 2, 0, 10_000); // a new seed serves again
        s.pushPull(1, 0, new float[] {1});
    }

    @Test
    void aGateThatWaitsTooLongFailsInOneLine() {
        PartitionState s = new PartitionState();
        s.seed(new float[] {0}, 0, 2, 0, 200);
        DmlException e = assertThrows(DmlException.class, () -> s.pushPull(0, 1,
                new float[] {1}));
        assertTrue(e.what().startsWith("A worker at step 1 waited 200 ms for the slowest, still at"
                + " step 0"), e.what());
    }

    @Test
    void row3AChangeFromAClientTheSeedDidNotCountIsRefusedAndAddsNothing() {
        PartitionState s = new PartitionState();
        s.seed(new float[] {5}, 0, 2, 0, 10_000); // seeded for two nodes' leaders
        DmlException e = assertThrows(DmlException.class, () -> s.pushPull(2, 1,
                new float[] {1}));
        assertTrue(e.what().equals("A parameter server seeded for 2 clients got a change from"
                + " client 2."), e.what());
        assertArrayEquals(new float[] {5}, s.pull(), "the stray change is not in the partition");
    }
}
