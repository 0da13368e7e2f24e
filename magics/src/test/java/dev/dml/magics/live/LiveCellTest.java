package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

class LiveCellTest {

    private final Samples samples = new Samples();

    /** One call the cell made on its sink. */
    record Call(String kind, String id, String svg, String text) {
    }

    /** Records every call; fails the first {@code failures} of them when asked to. */
    static final class RecordingSink implements DisplaySink {
        final List<Call> calls = new ArrayList<>();
        final AtomicInteger failures;

        RecordingSink(int failures) {
            this.failures = new AtomicInteger(failures);
        }

        @Override
        public void display(String id, String svg, String text) {
            record("display", id, svg, text);
        }

        @Override
        public void update(String id, String svg, String text) {
            record("update", id, svg, text);
        }

        private synchronized void record(String kind, String id, String svg, String text) {
            if (failures.decrementAndGet() >= 0) {
                throw new IllegalStateException("kernel socket closed");
            }
            calls.add(new Call(kind, id, svg, text));
        }

        synchronized List<Call> calls() {
            return List.copyOf(calls);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(10);
        }
    }

    private LiveDashboard started() {
        return samples.started(1, 100_000);
    }

    @Test
    void showsAtOnceThenUpdatesUnderTheSameId() throws Exception {
        LiveDashboard d = started();
        RecordingSink sink = new RecordingSink(0);
        try (LiveCell cell = new LiveCell(d, sink, Duration.ofMillis(50))) {
            assertEquals(List.of("display"), sink.calls().stream().map(Call::kind).toList());
            assertTrue(sink.calls().get(0).svg().startsWith("<svg"));
            d.onStep(samples.step(1, 1, false));
            await(() -> cell.updates() == 1, "the first update");
            d.onStep(samples.step(1, 2, false));
            await(() -> cell.updates() == 2, "the second update");
            List<Call> calls = sink.calls();
            assertEquals(List.of("display", "update", "update"),
                    calls.stream().map(Call::kind).toList());
            assertTrue(calls.stream().allMatch(c -> c.id().equals(cell.displayId())));
            assertTrue(calls.get(2).text().startsWith("epoch 1/1 · step 2/100,000"),
                    calls.get(2).text());
        }
    }

    @Test
    void costlyFramesWaitLongerUpToACap() {
        long ms = 1_000_000L;
        assertEquals(250 * ms, LiveCell.interval(250 * ms, 2 * ms, 2)); // 2 ms: 100 ms > 250
        assertEquals(500 * ms, LiveCell.interval(250 * ms, 10 * ms, 2)); // 10 ms at 2% of a core
        assertEquals(750 * ms, LiveCell.interval(250 * ms, 60 * ms, 2)); // capped
        assertEquals(2_000 * ms, LiveCell.interval(2_000 * ms, 60 * ms, 2)); // never below min
        assertEquals(250 * ms, LiveCell.interval(250 * ms, 60 * ms, 100)); // budget off
    }

    @Test
    void sendsAFewUpdatesASecondWhileSamplesPourIn() throws Exception {
        LiveDashboard d = started();
        RecordingSink sink = new RecordingSink(0);
        int updates;
        // the CPU budget off: this is about the minimum interval, whatever frames cost here
        try (LiveCell cell = new LiveCell(d, sink, Duration.ofMillis(250), 100)) {
            long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            for (long s = 1; System.nanoTime() < end; s++) {
                d.onStep(samples.step(1, s, false));
                Thread.sleep(2);
            }
            updates = cell.updates();
        }
        assertTrue(updates >= 2 && updates <= 6, "updates in 1 s at most every 250 ms: "
                + updates);
    }

    @Test
    void closePublishesTheLastFrameOnceAndOnlyIfSomethingChanged() {
        LiveDashboard d = started();
        RecordingSink sink = new RecordingSink(0);
        LiveCell cell = new LiveCell(d, sink, Duration.ofHours(1));
        for (long s = 1; s <= 7; s++) {
            d.onStep(samples.step(1, s, false));
        }
        cell.close();
        cell.close();
        List<Call> calls = sink.calls();
        assertEquals(2, calls.size(), "display, then the final update");
        assertTrue(calls.get(1).text().startsWith("epoch 1/1 · step 7/100,000"));
        assertEquals(1, cell.updates());

        RecordingSink quiet = new RecordingSink(0);
        new LiveCell(d, quiet, Duration.ofHours(1)).close();
        assertEquals(1, quiet.calls().size(), "nothing new after the first frame");
    }

    @Test
    void aFailingSinkDoesNotStopLaterUpdates() throws Exception {
        LiveDashboard d = started();
        RecordingSink sink = new RecordingSink(2);
        try (LiveCell cell = new LiveCell(d, sink, Duration.ofMillis(20))) {
            // The first display failed in the constructor; the next frame fails too.
            d.onStep(samples.step(1, 1, false));
            await(() -> sink.failures.get() <= 0, "the second failure");
            d.onStep(samples.step(1, 2, false));
            await(() -> sink.calls().size() == 1, "the display, retried");
            d.onStep(samples.step(1, 3, false));
            await(() -> sink.calls().size() == 2, "an update");
            assertEquals(List.of("display", "update"),
                    sink.calls().stream().map(Call::kind).toList());
            assertEquals(1, cell.updates());
        }
    }

    @Test
    void measuresHowLongReportsWaitedToBeShown() throws Exception {
        LiveDashboard d = started();
        RecordingSink sink = new RecordingSink(0);
        try (LiveCell cell = new LiveCell(d, sink, Duration.ofMillis(50))) {
            long reported = System.currentTimeMillis() - 100;
            d.onStep(Samples.step(1, 1, 0.5, 100, reported));
            await(() -> cell.latenciesMillis().length == 1, "a latency");
            long latency = cell.latenciesMillis()[0];
            assertTrue(latency >= 100 && latency < 20_000, "latency " + latency);
            d.onStep(Samples.step(1, 2, 0.5, 100, 0));
            await(() -> cell.updates() == 2, "an update without report times");
            assertEquals(1, cell.latenciesMillis().length);
        }
    }

    @Test
    void rejectsANonPositiveInterval() {
        DmlException e = assertThrows(DmlException.class,
                () -> new LiveCell(started(), new RecordingSink(0), Duration.ZERO));
        assertTrue(e.getMessage().contains("250 ms"), e.getMessage());
    }
}
