package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Actor groups and collectives on real Ray actors, in Ray's in-process LOCAL mode. */
class ActorGroupLocalTest {

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
        assertEquals(List.of(), LocalRay.sessionDirs(), "LOCAL session folder left behind");
    }

    private static ActorGroup<ProbeWorker> open(int n) {
        return ActorGroup.builder(ProbeWorker::new).setSize(n).optCpusPerActor(0)
                .optTimeout(Duration.ofSeconds(30)).open();
    }

    @Test
    void allReduceAverageEqualsMeanForOneToFourActors() {
        for (int n = 1; n <= 4; n++) {
            try (ActorGroup<ProbeWorker> group = open(n)) {
                for (int length : new int[] {n - 1, 1, 13, 1001}) {
                    List<float[]> in = ProbeWorker.randomInputs(n, length, 97L * n + length);
                    List<float[]> out = group.allReduce(in, ReduceOp.AVERAGE);
                    float[] expected = CommunicatorTest.mean(in);
                    for (int r = 0; r < n; r++) {
                        assertArrayEquals(expected, out.get(r), 1e-6f,
                                "n=" + n + " length=" + length + " rank=" + r);
                    }
                }
            }
        }
    }

    @Test
    void ranksTalkOverDirectLinksByDefaultAndOverRayWhenAsked() {
        for (TransportKind kind : TransportKind.values()) {
            try (ActorGroup<ProbeWorker> group = ActorGroup.builder(ProbeWorker::new).setSize(3)
                    .optCpusPerActor(0).optTimeout(Duration.ofSeconds(30)).optTransport(kind)
                    .open()) {
                List<float[]> in = ProbeWorker.randomInputs(3, 10_001, 8);
                List<float[]> out = group.allReduce(in, ReduceOp.AVERAGE);
                for (float[] o : out) {
                    assertArrayEquals(CommunicatorTest.mean(in), o, 1e-6f, kind.word());
                }
                for (var w : group.workers()) {
                    assertEquals(kind.word(), w.transport(), "rank " + w.rank());
                }
            }
        }
    }

    @Test
    void workersKnowTheirRanksAndReduceFromTheirOwnMethods() {
        try (ActorGroup<ProbeWorker> group = open(3)) {
            for (int r = 0; r < 3; r++) {
                assertEquals(r, group.workers().get(r).rank());
                assertEquals(3, group.workers().get(r).worldSize());
            }
            List<float[][]> res = group.callAll(ProbeWorker::averageOfRandom, 101);
            List<float[]> inputs = new ArrayList<>();
            res.forEach(x -> inputs.add(x[0]));
            for (float[][] x : res) {
                assertArrayEquals(CommunicatorTest.mean(inputs), x[1], 1e-6f);
            }
        }
    }

    @Test
    void broadcastAndByteCounts() {
        try (ActorGroup<ProbeWorker> group = open(4)) {
            float[] data = {1, 2, 3, 4, 5};
            for (float[] got : group.broadcast(data)) {
                assertArrayEquals(data, got, 0f);
            }
            List<float[]> in = ProbeWorker.randomInputs(4, 1000, 5);
            group.allReduce(in, ReduceOp.SUM);
            CollectiveStats s = group.stats();
            long broadcastBytes = 3L * 5 * Float.BYTES;
            long ringBytes = 2L * 3 * 1000 * Float.BYTES;
            assertEquals(broadcastBytes + ringBytes, s.bytesSent());
            assertEquals(s.bytesSent(), s.bytesReceived());
            assertEquals(8, s.operations());
        }
    }

    @Test
    void callEachNeedsOneArgumentPerRank() {
        try (ActorGroup<ProbeWorker> group = open(2)) {
            CollectiveException e = assertThrows(CollectiveException.class,
                    () -> group.callEach(ProbeWorker::averageOfRandom, List.of(1)));
            assertEquals("Got 1 arguments for 2 ranks.\nPass exactly one argument per rank.",
                    e.getMessage());
        }
    }

    @Test
    void aFailingRankIsNamedWithItsPidAndHost() {
        try (ActorGroup<ProbeWorker> group = open(2)) {
            List<float[]> in = List.of(new float[4], new float[6]);
            CollectiveException e = assertThrows(CollectiveException.class,
                    () -> group.allReduce(in, ReduceOp.SUM));
            assertTrue(e.what().matches("Rank [01] \\(pid \\d+ on .+\\) failed in allReduce: .*"
                    + "arrays of different lengths\\."), e.what());
            assertEquals("Pass arrays of the same length on every rank.", e.hint());
        }
    }

    @Test
    void row2AGrowWhoseNewWorkerFailsAfterListenLeavesTheOldGroupWorking() {
        try (ActorGroup<JoinFailingWorker> group = ActorGroup.builder(JoinFailingWorker::new)
                .setSize(2).optCpusPerActor(0).optTimeout(Duration.ofSeconds(10)).open()) {
            List<float[]> in = ProbeWorker.randomInputs(2, 1001, 21);
            assertArrayEquals(CommunicatorTest.mean(in),
                    group.allReduce(in, ReduceOp.AVERAGE).get(1), 1e-6f);
            JoinFailingWorker.failNewOnes = true;
            // the survivors listen anew (closing their endpoints), then the new one fails
            CollectiveException e = assertThrows(CollectiveException.class,
                    () -> group.grow(List.of(Slot.ANYWHERE), Duration.ofSeconds(10)));
            assertTrue(e.getMessage().contains("died while joining"), e.getMessage());
            // the survivors are the old group again: its next collective works
            List<float[]> next = ProbeWorker.randomInputs(2, 1001, 22);
            List<float[]> out = group.allReduce(next, ReduceOp.AVERAGE);
            for (float[] o : out) {
                assertArrayEquals(CommunicatorTest.mean(next), o, 1e-6f);
            }
            assertEquals(2, group.size());
        } finally {
            JoinFailingWorker.failNewOnes = false;
        }
    }

    @Test
    void sizeMustBePositive() {
        CollectiveException e = assertThrows(CollectiveException.class,
                () -> ActorGroup.builder(ProbeWorker::new).setSize(0));
        assertEquals("An actor group needs at least 1 actor, got 0.", e.what());
    }
}
