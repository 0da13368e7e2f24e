package dev.dml.ray.train.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Each worker owns its notice: the JVM's SIGTERM reaches the workers that hold a job's state,
 * and only those; a noticed worker's JVM ends once its job releases it.
 */
class PreemptionNoticeTest {

    @Test
    void theSignalReachesTheWorkersInAJobAndEachEndsWhenReleased() {
        List<String> exits = new CopyOnWriteArrayList<>();
        PreemptionNotice a = new PreemptionNotice(code -> exits.add("a:" + code));
        PreemptionNotice b = new PreemptionNotice(code -> exits.add("b:" + code));
        PreemptionNotice idle = new PreemptionNotice(code -> exits.add("idle:" + code));
        a.enterJob();
        b.enterJob();
        idle.enterJob();
        idle.leaveJob(); // its job ended before the notice
        try {
            PreemptionNotice.Sigterm.deliver();
            assertTrue(a.noticed() && b.noticed());
            assertFalse(idle.noticed(), "a worker without a job's state took the notice");
            assertEquals(List.of(), exits, "a noticed worker left before the driver released it");
        } finally {
            a.leaveJob();
            b.leaveJob();
        }
        assertEquals(List.of("a:143", "b:143"), exits);
    }

    @Test
    void aWorkerThatLeavesWithoutANoticeStays() {
        List<Integer> exits = new CopyOnWriteArrayList<>();
        PreemptionNotice n = new PreemptionNotice(exits::add);
        n.enterJob();
        n.leaveJob();
        assertFalse(n.noticed());
        assertEquals(List.of(), exits);
    }
}
