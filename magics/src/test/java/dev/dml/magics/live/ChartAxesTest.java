package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.JobCost;
import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import java.awt.geom.Rectangle2D;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Pattern;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.Tick;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.svg.SVGGraphics2D;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Every chart's value axis, drawn with tiny, ordinary and huge values: its tick labels are
 * distinct, in the unit of what is measured, and never "-0"; a flat or one-point series gets a
 * range of its own; an unpriced job has no dollar axis.
 */
class ChartAxesTest {

    private static final Pattern PLAIN = Pattern.compile("-?[\\d,]+(\\.\\d+)?");
    private static final Pattern RATE = Pattern.compile("[\\d,]+(\\.\\d+)?[kM]?");
    private static final Pattern USD = Pattern.compile("\\$[\\d,]+(\\.\\d\\d)?|[\\d,.]+ m\\$");
    private static final Pattern BYTES = Pattern.compile("[\\d,]+(\\.\\d+)? (B|KiB|MiB|GiB|TiB)");

    private final Samples samples = new Samples();

    /** A job of 20 steps whose every figure is {@code scale} times an ordinary one. */
    private LiveDashboard job(double scale, boolean flat) {
        LiveDashboard d = samples.started(1, 20);
        for (int s = 1; s <= 20; s++) {
            double wave = flat ? 1 : 1 + 0.3 * Math.sin(s);
            List<ProcessSample> workers = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                workers.add(new ProcessSample(50 * wave, (long) (200e6 * scale * wave),
                        (long) (900e6 * scale * wave)));
            }
            d.onStep(new StepMetrics(1, s, (float) (0.5 * scale * wave), 256,
                    12_000 * scale * wave, 1, 1, (long) (4e6 * scale * wave), 0, workers, 0));
            d.onCost(new JobCost(s, 0.192, 0.01 * scale * s / 20, s, 1, true, false,
                    "1 node: aws m5.xlarge"));
            samples.advanceSeconds(1);
        }
        return d;
    }

    @ParameterizedTest
    @ValueSource(doubles = {1e-4, 1, 1e5})
    void everyAxisHasDistinctLabelsInItsUnit(double scale) {
        for (boolean flat : new boolean[] {false, true}) {
            Snapshot s = snapshot(job(scale, flat));
            String what = "scale " + scale + (flat ? ", flat" : "");
            check(Charts.loss(s), PLAIN, what + ": loss");
            check(Charts.cost(s), USD, what + ": cost");
            check(Charts.throughput(s), RATE, what + ": throughput");
            check(Charts.allReduce(s), BYTES, what + ": all-reduce");
            check(Charts.memory(s), BYTES, what + ": memory");
            check(Charts.utilisation(s), PLAIN, what + ": CPU");
        }
    }

    @Test
    void aTinyJobsDollarsAreInMilliDollars() {
        // The quickstart: $0.0007 in all.
        LiveDashboard d = samples.started(1, 20);
        for (int s = 1; s <= 20; s++) {
            d.onStep(Samples.step(1, s, 0.5, 50_000, 0));
            d.onCost(new JobCost(s, 0.192, 0.0007 * s / 20, s, 1, true, false, "m5.xlarge"));
        }
        List<String> labels = check(Charts.cost(snapshot(d)), USD, "quickstart cost");
        assertTrue(labels.stream().allMatch(l -> l.endsWith(" m$")), labels.toString());
    }

    @Test
    void aOnePointSeriesGetsARangeAroundItsValue() {
        LiveDashboard d = samples.started(1, 468);
        d.onStep(Samples.step(1, 1, 0.572, 53_190, 0));
        Snapshot s = snapshot(d);
        List<String> loss = check(Charts.loss(s), PLAIN, "loss at step 1");
        assertTrue(loss.size() >= 3, loss.toString());
        check(Charts.throughput(s), RATE, "throughput at step 1");
    }

    @Test
    void anUnpricedJobShowsNoDollarAxis() throws Exception {
        LiveDashboard d = samples.started(1, 20);
        d.onStep(Samples.step(1, 1, 0.5, 1_000, 0));
        d.onCost(new JobCost(1, 0, 0, 1, 1, false, false, "not priced"));
        JFreeChart chart = Charts.cost(snapshot(d));
        assertFalse(chart.getXYPlot().getRangeAxis().isVisible());
        SvgText svg = new SvgText(svgOf(chart));
        assertFalse(svg.texts().stream().anyMatch(t -> t.contains("$") || t.equals("0")
                || t.equals("-0")), svg.texts().toString());
        assertTrue(svg.hasText("nodes not priced"), svg.texts().toString());
    }

    @Test
    void labelsCarryTheirUnitAndNoNegativeZero() {
        assertEquals("$0.05", Axes.label(0.05, 0.05, Axes.Kind.USD));
        assertEquals("$1", Axes.label(1, 1, Axes.Kind.USD));
        assertEquals("0.2 m$", Axes.label(0.0002, 0.0001, Axes.Kind.USD));
        assertEquals("1.5k", Axes.label(1_500, 500, Axes.Kind.RATE));
        assertEquals("4M", Axes.label(4e6, 2e6, Axes.Kind.RATE));
        assertEquals("512 KiB", Axes.label(512 * 1024, 256 * 1024, Axes.Kind.BYTES));
        assertEquals("1.5 MiB", Axes.label(1.5 * 1024 * 1024, 512 * 1024, Axes.Kind.BYTES));
        assertEquals("3 GiB", Axes.label(3L << 30, 1L << 30, Axes.Kind.BYTES));
        assertEquals("0.000", Axes.label(-1e-17, 0.002, Axes.Kind.PLAIN));
        assertEquals("0.004", Axes.label(0.004, 0.002, Axes.Kind.PLAIN));
    }

    private static Snapshot snapshot(LiveDashboard d) {
        synchronized (d) {
            return d.snapshot();
        }
    }

    private static String svgOf(JFreeChart chart) {
        SVGGraphics2D g = new SVGGraphics2D(300, 238);
        chart.draw(g, new Rectangle2D.Double(0, 0, 300, 238));
        return g.getSVGElement();
    }

    /** The value axis's tick labels as drawn at the chart's size in a frame. */
    private static List<String> check(JFreeChart chart, Pattern format, String what) {
        SVGGraphics2D g = new SVGGraphics2D(300, 238);
        ChartRenderingInfo info = new ChartRenderingInfo();
        chart.draw(g, new Rectangle2D.Double(0, 0, 300, 238), info);
        Rectangle2D area = info.getPlotInfo().getDataArea();
        NumberAxis axis = chart.getPlot() instanceof XYPlot xy ? (NumberAxis) xy.getRangeAxis()
                : (NumberAxis) ((CategoryPlot) chart.getPlot()).getRangeAxis();
        boolean horizontal = chart.getPlot() instanceof CategoryPlot c
                && c.getOrientation().isHorizontal();
        List<String> labels = new ArrayList<>();
        for (Object t : axis.refreshTicks(g, new AxisState(), area,
                horizontal ? RectangleEdge.BOTTOM : RectangleEdge.LEFT)) {
            String label = ((Tick) t).getText();
            if (label != null && !label.isEmpty()) {
                labels.add(label);
            }
        }
        assertTrue(labels.size() >= 2, what + ": too few ticks " + labels);
        assertEquals(labels.size(), new HashSet<>(labels).size(), what + ": repeated " + labels);
        for (String l : labels) {
            assertTrue(format.matcher(l).matches(), what + ": '" + l + "' in " + labels);
            assertFalse(l.startsWith("-0") || l.startsWith("-$0"), what + ": " + labels);
        }
        return labels;
    }
}
