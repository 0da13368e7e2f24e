package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code %dml compare}'s chart: every run's curve in one SVG, named in its legend. */
class CurveChartTest {

    @Test
    void eachRunIsACurveNamedInTheLegendOverTheAxisAsked() throws Exception {
        SvgText svg = new SvgText(CurveChart.svg("val_loss of 2 runs", "epoch", "val_loss",
                List.of("fraud-a", "fraud-b"), List.of(
                        new double[][] {{1, 2, 3}, {0.9, 0.6, 0.5}},
                        new double[][] {{1, 2}, {0.8, 0.4}})));
        assertTrue(svg.hasText("val_loss of 2 runs"), svg.texts().toString());
        assertTrue(svg.hasText("fraud-a") && svg.hasText("fraud-b"), svg.texts().toString());
        assertTrue(svg.hasText("epoch") && svg.hasText("val_loss"), svg.texts().toString());
        // run a's three points: one line of two segments (grid lines and axes have one)
        assertTrue(svg.paths().stream().anyMatch(d -> d.startsWith("M")
                && d.split("L").length == 3), svg.paths().toString());
    }
}
