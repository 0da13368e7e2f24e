package dev.dml.magics.live;

import java.util.List;

/**
 * Recorded runs' curves of one metric overlaid in one SVG chart ({@code %dml compare}), drawn
 * with the live plot's charts: the same axes, fonts and colours.
 */
public final class CurveChart {

    private static final int WIDTH = 720;
    private static final int HEIGHT = 360;

    private CurveChart() {}

    /**
     * Draws the curves.
     *
     * @param title the chart's title
     * @param xLabel what the curves are drawn over, e.g. {@code epoch}
     * @param yLabel the metric
     * @param names each curve's name, for the legend
     * @param curves each curve as {@code {xs, ys}}, in the order of {@code names}
     * @return a standalone SVG document
     */
    public static String svg(String title, String xLabel, String yLabel, List<String> names,
            List<double[][]> curves) {
        return svg(title, xLabel, yLabel, names, curves, new boolean[names.size()]);
    }

    /**
     * Draws the curves, some greyed ({@code %dml tune}'s trials stopped early).
     *
     * @param title the chart's title
     * @param xLabel what the curves are drawn over, e.g. {@code epoch}
     * @param yLabel the metric
     * @param names each curve's name, for the legend
     * @param curves each curve as {@code {xs, ys}}, in the order of {@code names}
     * @param greyed which curves to draw in grey, in the order of {@code names}
     * @return a standalone SVG document
     */
    public static String svg(String title, String xLabel, String yLabel, List<String> names,
            List<double[][]> curves, boolean[] greyed) {
        return FrameRenderer.chart(Charts.curves(title, xLabel, yLabel, names, curves, greyed),
                "dml-compare-", WIDTH, HEIGHT, true).svg();
    }
}
