package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stop vote as a data-parallel step sends it: out after the backward, the gradients'
 * all-reduce in between, read after it; a message of its own, never in the gradients.
 */
class StopVoteTest {

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "rank threads leaked");
    }

    @Test
    void everyRankStopsAfterTheStepInWhichOneVotedAndTheGradientsStayTheirOwn() throws Exception {
        List<Communicator> comms = CommunicatorTest.group(new Topology(
                List.of("a", "a", "b", "b")), Duration.ofSeconds(10));
        List<float[]> grads = CommunicatorTest.randomInputs(4, 1001, 7);
        float[] mean = CommunicatorTest.mean(grads);
        for (int step = 0; step < 5; step++) {
            int leavingAt = step; // rank 2 votes to stop in step 3 only
            List<float[]> out = CommunicatorTest.runAll(pool, comms, grads, (c, g) -> {
                StopVote v = c.vote(c.rank() == 2 && leavingAt == 3);
                float[] reduced = c.allReduce(g, ReduceOp.AVERAGE);
                boolean stop = v.anyStop();
                float[] withFlag = java.util.Arrays.copyOf(reduced, reduced.length + 1);
                withFlag[reduced.length] = stop ? 1 : 0;
                return withFlag;
            });
            for (int r = 0; r < 4; r++) {
                float[] o = out.get(r);
                assertEquals(step == 3 ? 1f : 0f, o[1001], "rank " + r + " in step " + step);
                assertArrayEquals(mean, java.util.Arrays.copyOf(o, 1001), 1e-6f,
                        "the gradients' average is untouched by the vote");
            }
        }
        CollectiveStats s = comms.get(0).stats();
        assertEquals(5, s.operations(), "a vote is no all-reduce of its own");
    }

    @Test
    void aRankThatNeverVotesEndsTheWaitInOneLineWithinTheTimeout() {
        List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(2),
                Duration.ofMillis(200));
        StopVote v = comms.get(0).vote(false);
        long t0 = System.nanoTime();
        CollectiveException e = assertThrows(CollectiveException.class, v::anyStop);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "bounded wait");
        assertTrue(e.getMessage().startsWith("Rank 0 got no stop vote from rank 1"),
                e.getMessage());
    }

    @Test
    void anAbortEndsAVoteWaitAtOnce() {
        List<Communicator> comms = CommunicatorTest.group(Topology.singleNode(2),
                Duration.ofSeconds(60));
        StopVote v = comms.get(0).vote(true);
        comms.get(0).abort("rank 1 died");
        CollectiveException e = assertThrows(CollectiveException.class, v::anyStop);
        assertTrue(e.getMessage().contains("rank 1 died"), e.getMessage());
    }

    @Test
    void aLoneRankKeepsItsOwnVoteAndSendsNothing() {
        Communicator alone = CommunicatorTest.group(Topology.singleNode(1),
                Duration.ofSeconds(1)).get(0);
        assertTrue(alone.vote(true).anyStop());
        assertEquals(0, alone.stats().bytesSent());
    }
}
