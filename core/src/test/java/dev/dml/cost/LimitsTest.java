package dev.dml.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LimitsTest {

    @Test
    void theMeterIntegratesTheRateAcrossChanges() {
        CostMeter m = new CostMeter();
        assertEquals(0, m.spent(5));
        m.start(0, 3.6);                       // $3.60/h = $0.001 a second
        assertEquals(0.010, m.spent(10_000_000_000L), 1e-12);
        m.setRate(10_000_000_000L, 7.2);       // a recovery moved a worker to a dearer node
        assertEquals(0.030, m.spent(20_000_000_000L), 1e-12);
        assertEquals(7.2, m.usdPerHour());
    }

    @Test
    void aBudgetLetsOnlyTheStepsItPaysFor() {
        Limits l = new Limits(1.0, Double.NaN);
        // $36/h, 1 s a step: $0.01 a step; $0.955 spent leaves room for 4 steps
        assertEquals(4, l.stepsThatFit(0.955, 36, 100, 1.0));
        assertEquals(0, l.stepsThatFit(0.995, 36, 100, 1.0));
        assertEquals(0, l.stepsThatFit(1.0, 36, 100, 1.0));
        assertEquals(1, l.stepsThatFit(0.1, 36, 1, Double.NaN), "pace not known: one step");
        assertEquals(Long.MAX_VALUE, l.stepsThatFit(0, 0, 1, 1.0), "free nodes never stop it");
        assertEquals(Long.MAX_VALUE, Limits.NONE.stepsThatFit(99, 99, 99, 1));
        assertTrue(l.reason(0.995, 36, 100, 1.0).startsWith("{budget}: stopped after $0.9950"
                + " of $1; the next step ($0.0100 at $36.00/h) would pass it"),
                l.reason(0.995, 36, 100, 1.0));
    }

    @Test
    void aDeadlineLetsOnlyTheStepsThatEndInTime() {
        Limits l = new Limits(Double.NaN, 60);
        assertEquals(9, l.stepsThatFit(0, 0, 50.5, 1.0));
        assertEquals(0, l.stepsThatFit(0, 0, 59.5, 1.0));
        assertEquals("{deadline}: stopped after 59.5 s of 60 s; the next step (1.00 s) would"
                + " pass it", l.reason(0, 0, 59.5, 1.0));
        Limits both = new Limits(0.5, 60);
        assertEquals(3, both.stepsThatFit(0.47, 36, 10, 1.0));
    }
}
