package dev.dml.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AshaTest {

    @Test
    void rungsAreGraceTimesReductionPowersBelowTheLastEpoch() {
        assertEquals(List.of(1, 3), new Asha(9, 1, 3, true).rungs());
        assertEquals(List.of(1, 3, 9), new Asha(10, 1, 3, true).rungs());
        assertEquals(List.of(2, 4, 8), new Asha(12, 2, 2, true).rungs());
        assertEquals(List.of(), new Asha(1, 1, 3, true).rungs());
    }

    /** Six trials reach the first rung one after another: only those below the cutoff stop. */
    @Test
    void stopsATrialBelowTheTopThirdOfWhatTheRungHasRecorded() {
        Asha asha = new Asha(9, 1, 3, true);
        double[] accuracy = {0.50, 0.40, 0.60, 0.45, 0.70, 0.55};
        List<String> stopped = new ArrayList<>();
        for (int i = 0; i < accuracy.length; i++) {
            if (asha.shouldStop("t" + i, 1, accuracy[i])) {
                stopped.add("t" + i);
            }
        }
        // t0 is the rung's first; t1 is below 0.50; t2 above the 2/3 quantile of {.4,.5}=0.467;
        // t3 below that of {.4,.5,.6}=0.533; t4 above all; t5 below that of
        // {.4,.45,.5,.6,.7}=0.567
        assertEquals(List.of("t1", "t3", "t5"), stopped);
    }

    @Test
    void aLossStopsWhenItIsHigher() {
        Asha asha = new Asha(9, 1, 3, false);
        assertFalse(asha.shouldStop("a", 1, 0.9));
        assertTrue(asha.shouldStop("b", 1, 1.2));
        assertFalse(asha.shouldStop("c", 1, 0.3));
    }

    @Test
    void aTrialIsJudgedOncePerRungAndAgainAtTheNext() {
        Asha asha = new Asha(9, 1, 3, true);
        assertFalse(asha.shouldStop("a", 1, 0.5));
        assertFalse(asha.shouldStop("b", 1, 0.6));
        // between rungs nothing is decided, even for a weak value
        assertFalse(asha.shouldStop("a", 2, 0.1));
        assertFalse(asha.shouldStop("b", 3, 0.8));
        assertTrue(asha.shouldStop("a", 3, 0.7)); // below b at rung 3
        // the last epoch is no rung: a trial that gets there ends anyway
        assertFalse(asha.shouldStop("b", 9, 0.1));
    }

    @Test
    void nanIsNeitherRecordedNorStopped() {
        Asha asha = new Asha(9, 1, 3, true);
        assertFalse(asha.shouldStop("a", 1, Double.NaN));
        assertFalse(asha.shouldStop("b", 1, 0.2)); // still the rung's first value
        assertTrue(asha.shouldStop("c", 1, 0.1));
    }

    @Test
    void refusesAReductionBelowTwo() {
        DmlException e = assertThrows(DmlException.class, () -> new Asha(9, 1, 1, true));
        assertTrue(e.whatTemplate().contains("{reduction} must be at least 2"), e.what());
    }
}
