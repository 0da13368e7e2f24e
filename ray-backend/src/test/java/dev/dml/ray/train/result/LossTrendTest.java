package dev.dml.ray.train.result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.dml.Vocabulary;
import dev.dml.events.EpochMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/** When a job's end says "still improving", as scikit-learn's ConvergenceWarning does. */
class LossTrendTest {

    private static List<EpochMetrics> epochs(int n, IntToDoubleFunction loss, boolean validated) {
        List<EpochMetrics> out = new ArrayList<>();
        for (int e = 1; e <= n; e++) {
            float l = (float) loss.applyAsDouble(e);
            out.add(new EpochMetrics(e, e * 10L, 10, validated ? l + 0.1f : l, 1, 100,
                    validated ? l : Float.NaN, Double.NaN, Double.NaN));
        }
        return out;
    }

    @Test
    void aLossStillFallingAtItsPaceSaysSoInTheWordsOfEachSurface() {
        String t = LossTrend.notice(epochs(6, e -> 1.0 - 0.1 * e, true));
        assertEquals("Still improving: the validation loss fell over the last 3 epochs, from"
                + " 0.7000 to 0.4000; more --epochs would likely help.",
                Vocabulary.NOTEBOOK.render(t));
        assertEquals("Still improving: the training loss fell over the last 3 epochs, from"
                + " 0.7000 to 0.4000; more optEpochs would likely help.",
                Vocabulary.JAVA.render(LossTrend.notice(epochs(6, e -> 1.0 - 0.1 * e, false))));
    }

    @Test
    void aLossLevellingOffRisingOrTooShortSaysNothing() {
        // towards 0: 18 % over the last 3 of 60 epochs, but a tenth of its mean pace
        assertNull(LossTrend.notice(epochs(60, e -> Math.exp(-e / 15.0), true)));
        assertNull(LossTrend.notice(epochs(10, e -> 0.5 + 0.01 * e, true)), "rising");
        assertNull(LossTrend.notice(epochs(10, e -> e == 10 ? 0.6 : 1.0 - 0.05 * e, true)),
                "rose in the last epoch");
        assertNull(LossTrend.notice(epochs(10, e -> 1.0 - 0.001 * e, true)), "under 3 %");
        assertNull(LossTrend.notice(epochs(3, e -> 1.0 - 0.2 * e, true)), "3 epochs");
    }
}
