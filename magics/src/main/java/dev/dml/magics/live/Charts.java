package dev.dml.magics.live;

import dev.dml.events.PipelineMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.WorkerInfo;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.geom.Ellipse2D;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.StandardChartTheme;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.AbstractRenderer;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.HorizontalAlignment;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.DefaultXYDataset;

/**
 * The JFreeChart charts of a frame, one method per chart, in one look: logical fonts only (so
 * no installed fonts are needed), white background, light grid, one colour per worker rank.
 */
final class Charts {

    /** Font family every chart and the header use; a logical name that the JDK always has. */
    static final String FONT = "SansSerif";
    static final Color INK = new Color(0x33, 0x33, 0x33);
    static final Color GRID = new Color(0xE3, 0xE3, 0xE3);
    static final Color BLUE = new Color(0x4E, 0x79, 0xA7);
    static final Color ORANGE = new Color(0xF2, 0x8E, 0x2B);
    static final Color GREEN = new Color(0x59, 0xA1, 0x4F);
    static final Color PURPLE = new Color(0xB0, 0x7A, 0xA1);
    static final Color BUBBLE = new Color(0xE8, 0xB4, 0xA8);
    static final Color RED = new Color(0xE1, 0x57, 0x59);
    static final Color GREYED = new Color(0xC8, 0xC8, 0xC8);

    // Tableau 10: distinct and colour-blind friendly; rank i always gets PALETTE[i % 10].
    private static final int[] PALETTE = {0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F,
        0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC};
    private static final StandardChartTheme THEME = theme();

    static {
        // Rotated axis labels as SVG text, not glyph outlines: smaller, selectable, and the
        // same on every machine whatever fonts it has. (A JFreeChart-wide switch; the
        // workaround is for Java 1.4-era Graphics2D bugs.)
        TextUtils.setUseDrawRotatedStringWorkaround(false);
    }

    private Charts() {
    }

    /** The colour of worker {@code rank} in every per-worker chart. */
    static Color worker(int rank) {
        return new Color(PALETTE[Math.floorMod(rank, PALETTE.length)]);
    }

    /** Training loss per step and, when given, validation loss per epoch with markers. */
    static JFreeChart loss(Snapshot s) {
        boolean validation = s.validationLoss()[0].length > 0;
        DefaultXYDataset data = new DefaultXYDataset();
        data.addSeries("train", s.loss());
        if (validation) {
            data.addSeries("validation", s.validationLoss());
        }
        XYLineAndShapeRenderer r = lines(BLUE, ORANGE);
        r.setSeriesShapesVisible(1, true);
        r.setSeriesShape(1, new Ellipse2D.Double(-3.5, -3.5, 7, 7));
        JFreeChart chart = xyChart("loss", "loss", Axes.Kind.PLAIN, data, r, false, validation);
        for (Recovery rec : s.recoveries()) {
            chart.getXYPlot().addDomainMarker(recoveryMarker(rec));
        }
        return chart;
    }

    /** A red dashed line where a recovery took the job back to, with the steps redone. */
    private static ValueMarker recoveryMarker(Recovery rec) {
        ValueMarker m = new ValueMarker(rec.resumedFrom(), RED, new BasicStroke(1.2f,
                BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f));
        m.setLabel((rec.preemption() ? "pre-empted" : "recovered") + " · "
                + Formats.count(rec.stepsRedone()) + " redone");
        m.setLabelFont(new Font(FONT, Font.PLAIN, 10));
        m.setLabelPaint(RED);
        m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        return m;
    }

    /**
     * Dollars spent over the job's time, in minutes. On nodes nobody priced there are no
     * dollars to draw: no axes, a line that says so.
     */
    static JFreeChart cost(Snapshot s) {
        DefaultXYDataset data = new DefaultXYDataset();
        if (!s.cost().priced()) {
            NumberAxis x = new NumberAxis();
            NumberAxis y = new NumberAxis();
            x.setVisible(false);
            y.setVisible(false);
            XYPlot plot = new XYPlot(data, x, y, lines(ORANGE));
            plot.setNoDataMessage("nodes not priced");
            plot.setDomainGridlinesVisible(false);
            plot.setRangeGridlinesVisible(false);
            return finish("cost (not priced)", plot, false);
        }
        double[][] usd = s.usdSpent();
        double[] minutes = new double[usd[0].length];
        for (int i = 0; i < minutes.length; i++) {
            minutes[i] = usd[0][i] / 60;
        }
        data.addSeries("$ spent", new double[][] {minutes, usd[1]});
        NumberAxis x = Axes.of("minutes", Axes.Kind.PLAIN, false);
        Axes.fit(x, Axes.Kind.PLAIN, minutes);
        NumberAxis y = Axes.of("$", Axes.Kind.USD, true);
        Axes.fit(y, Axes.Kind.USD, usd[1]);
        XYPlot plot = new XYPlot(data, x, y, lines(ORANGE));
        plot.setNoDataMessage("waiting for the job's cost");
        return finish("cost", plot, false);
    }

    /** Examples per second of each step, all workers together. */
    static JFreeChart throughput(Snapshot s) {
        DefaultXYDataset data = new DefaultXYDataset();
        data.addSeries("examples/s", s.examplesPerSecond());
        return xyChart("throughput", "examples/s", Axes.Kind.RATE, data, lines(GREEN), true,
                false);
    }

    /**
     * Bytes the all-reduce moved per step; once a job crosses nodes, split into the bytes that
     * stayed inside nodes and those that crossed.
     */
    static JFreeChart allReduce(Snapshot s) {
        DefaultXYDataset data = new DefaultXYDataset();
        double[][] all = bytes(s.allReduceMiB());
        if (s.interNodeTotalBytes() == 0) {
            data.addSeries("all-reduce", all);
            return xyChart("all-reduce per step", "bytes", Axes.Kind.BYTES, data,
                    lines(PURPLE), true, false);
        }
        double[][] inside = {all[0], all[1].clone()};
        double[][] across = bytes(s.interNodeMiB());
        for (int i = 0; i < inside[1].length && i < across[1].length; i++) {
            inside[1][i] -= across[1][i];
        }
        data.addSeries("within nodes", inside);
        data.addSeries("across nodes", across);
        return xyChart("all-reduce per step", "bytes", Axes.Kind.BYTES, data,
                lines(PURPLE, ORANGE), true, true);
    }

    /** A series in MiB, in bytes. */
    private static double[][] bytes(double[][] mib) {
        double[] b = mib[1].clone();
        for (int i = 0; i < b.length; i++) {
            b[i] *= Formats.MIB;
        }
        return new double[][] {mib[0], b};
    }

    /** Each worker's CPU use, and GPU use beside it (lighter) when the job has GPUs. */
    static JFreeChart utilisation(Snapshot s) {
        boolean gpu = s.gpuPercent().length > 0;
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int i = 0; i < s.cpuPercent().length; i++) {
            data.addValue(s.cpuPercent()[i], "CPU", rankKey(s.workers(), i));
        }
        for (int i = 0; gpu && i < s.gpuPercent().length; i++) {
            data.addValue(s.gpuPercent()[i], "GPU", rankKey(s.workers(), i));
        }
        String title = gpu ? "CPU and GPU per worker" : "CPU per worker";
        return workerBars(title, "% (100 = one core)", Axes.Kind.WHOLE, data,
                gpu ? List.of("CPU", "GPU") : null);
    }

    /** Each worker's resident set size and, lighter, its used Java heap. */
    static JFreeChart memory(Snapshot s) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (int i = 0; i < s.rssBytes().length; i++) {
            data.addValue(s.rssBytes()[i], "RSS", rankKey(s.workers(), i));
        }
        for (int i = 0; i < s.heapBytes().length; i++) {
            data.addValue(s.heapBytes()[i], "heap", rankKey(s.workers(), i));
        }
        return workerBars("memory per worker", "bytes", Axes.Kind.BYTES, data,
                List.of("RSS", "heap used"));
    }

    /** Each pipeline stage's busy and idle (bubble) time at the latest sampled step. */
    static JFreeChart stages(Snapshot s) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        double busy = 0;
        double idle = 0;
        long activations = 0;
        for (int i = 0; i < s.stages().size(); i++) {
            PipelineMetrics.StageTime st = s.stages().get(i);
            String key = "stage " + i + " · " + Formats.bytes(st.activationBytes());
            data.addValue(st.busyMillis(), "busy", key);
            data.addValue(st.idleMillis(), "idle (bubble)", key);
            busy += st.busyMillis();
            idle += st.idleMillis();
            activations += st.activationBytes();
        }
        String title = "pipeline stages at step " + Formats.count(s.stageStep()) + " · bubble "
                + Formats.fraction(idle / (busy + idle)) + " · activations "
                + Formats.bytes(activations);
        StackedBarRenderer r = keepColours(new StackedBarRenderer());
        r.setSeriesPaint(0, BLUE);
        r.setSeriesPaint(1, BUBBLE);
        r.setMaximumBarWidth(0.6);
        NumberAxis ms = Axes.of("ms per step", Axes.Kind.PLAIN, true);
        Axes.fit(ms, Axes.Kind.PLAIN, values(data));
        CategoryPlot plot = new CategoryPlot(data, new CategoryAxis(null), ms, r);
        plot.setOrientation(PlotOrientation.HORIZONTAL);
        plot.setRangeAxisLocation(AxisLocation.BOTTOM_OR_RIGHT);
        return finish(title, plot, true);
    }

    private static Comparable<String> rankKey(List<WorkerInfo> workers, int index) {
        return Integer.toString(index < workers.size() ? workers.get(index).rank() : index);
    }

    private static XYLineAndShapeRenderer lines(Color... colours) {
        XYLineAndShapeRenderer r = keepColours(new XYLineAndShapeRenderer(true, false));
        r.setDrawSeriesLineAsPath(true);
        for (int i = 0; i < colours.length; i++) {
            r.setSeriesPaint(i, colours[i]);
            r.setSeriesStroke(i, new BasicStroke(1.6f, BasicStroke.CAP_ROUND,
                    BasicStroke.JOIN_ROUND));
        }
        return r;
    }

    /**
     * Several runs' curves of one metric over one axis, a colour per run ({@code %dml
     * compare}); greyed ones light grey ({@code %dml tune}'s trials stopped early).
     */
    static JFreeChart curves(String title, String xLabel, String yLabel, List<String> names,
            List<double[][]> curves, boolean[] greyed) {
        DefaultXYDataset data = new DefaultXYDataset();
        Color[] colours = new Color[names.size()];
        for (int i = 0; i < names.size(); i++) {
            data.addSeries(names.get(i), curves.get(i));
            colours[i] = greyed[i] ? GREYED : worker(i);
        }
        return xyChart(title, xLabel, yLabel, Axes.Kind.PLAIN, data, lines(colours), false,
                true);
    }

    private static JFreeChart xyChart(String title, String yLabel, Axes.Kind kind,
            DefaultXYDataset data, XYLineAndShapeRenderer r, boolean includeZero,
            boolean legend) {
        return xyChart(title, "step", yLabel, kind, data, r, includeZero, legend);
    }

    private static JFreeChart xyChart(String title, String xLabel, String yLabel,
            Axes.Kind kind, DefaultXYDataset data, XYLineAndShapeRenderer r,
            boolean includeZero, boolean legend) {
        NumberAxis x = Axes.of(xLabel, Axes.Kind.WHOLE, false);
        NumberAxis y = Axes.of(yLabel, kind, includeZero);
        double[] xs = new double[0];
        double[] ys = new double[0];
        for (int i = 0; i < data.getSeriesCount(); i++) {
            double[][] series = {new double[data.getItemCount(i)],
                new double[data.getItemCount(i)]};
            for (int j = 0; j < series[0].length; j++) {
                series[0][j] = data.getXValue(i, j);
                series[1][j] = data.getYValue(i, j);
            }
            xs = concat(xs, series[0]);
            ys = concat(ys, series[1]);
        }
        Axes.fit(x, Axes.Kind.WHOLE, xs);
        Axes.fit(y, kind, ys);
        XYPlot plot = new XYPlot(data, x, y, r);
        plot.setNoDataMessage("waiting for the first step");
        return finish(title, plot, legend);
    }

    private static double[] concat(double[] a, double[] b) {
        double[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Every value of a category dataset. */
    private static double[] values(DefaultCategoryDataset data) {
        double[] out = new double[data.getRowCount() * data.getColumnCount()];
        int n = 0;
        for (int r = 0; r < data.getRowCount(); r++) {
            for (int c = 0; c < data.getColumnCount(); c++) {
                Number v = data.getValue(r, c);
                out[n++] = v == null ? Double.NaN : v.doubleValue();
            }
        }
        return out;
    }

    /** Bars grouped by worker rank, coloured by worker; a second series is a lighter tint. */
    private static JFreeChart workerBars(String title, String yLabel, Axes.Kind kind,
            DefaultCategoryDataset data, List<String> legend) {
        BarRenderer r = new BarRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            public Paint getItemPaint(int row, int column) {
                Color c = worker(Integer.parseInt((String) getPlot().getDataset()
                        .getColumnKey(column)));
                return row == 0 ? c : tint(c);
            }
        };
        keepColours(r);
        r.setItemMargin(0.05);
        r.setMaximumBarWidth(0.12);
        NumberAxis y = Axes.of(yLabel, kind, true);
        Axes.fit(y, kind, values(data));
        CategoryPlot plot = new CategoryPlot(data, new CategoryAxis("worker rank"), y, r);
        plot.setNoDataMessage("waiting for the first step");
        if (legend != null) {
            LegendItemCollection items = new LegendItemCollection();
            items.add(new LegendItem(legend.get(0), INK));
            items.add(new LegendItem(legend.get(1), tint(INK)));
            plot.setFixedLegendItems(items);
        }
        return finish(title, plot, legend != null);
    }

    /** Stops the theme from clearing the colours and strokes set per series. */
    private static <R extends AbstractRenderer> R keepColours(R r) {
        r.setAutoPopulateSeriesPaint(false);
        r.setAutoPopulateSeriesStroke(false);
        return r;
    }

    private static Color tint(Color c) {
        return new Color((c.getRed() + 2 * 255) / 3, (c.getGreen() + 2 * 255) / 3,
                (c.getBlue() + 2 * 255) / 3);
    }

    private static JFreeChart finish(String title, org.jfree.chart.plot.Plot plot,
            boolean legend) {
        JFreeChart chart = new JFreeChart(title, new Font(FONT, Font.BOLD, 12), plot, legend);
        THEME.apply(chart);
        chart.getTitle().setHorizontalAlignment(HorizontalAlignment.LEFT);
        chart.getTitle().setPadding(new RectangleInsets(2, 4, 2, 4));
        chart.setPadding(new RectangleInsets(4, 4, 4, 8));
        chart.setBorderVisible(false);
        if (legend) {
            LegendTitle l = chart.getLegend();
            l.setFrame(BlockBorder.NONE);
            l.setPosition(RectangleEdge.TOP);
            l.setHorizontalAlignment(HorizontalAlignment.RIGHT);
            l.setItemFont(new Font(FONT, Font.PLAIN, 11));
        }
        return chart;
    }

    private static StandardChartTheme theme() {
        StandardChartTheme t = new StandardChartTheme("dml", false);
        // The theme gives titles the extra-large font, axis labels the large one, ticks regular.
        t.setExtraLargeFont(new Font(FONT, Font.BOLD, 12));
        t.setLargeFont(new Font(FONT, Font.PLAIN, 11));
        t.setRegularFont(new Font(FONT, Font.PLAIN, 10));
        t.setSmallFont(new Font(FONT, Font.PLAIN, 10));  // 10 px: no text smaller
        t.setTitlePaint(INK);
        t.setAxisLabelPaint(INK);
        t.setTickLabelPaint(INK);
        t.setChartBackgroundPaint(Color.WHITE);
        t.setPlotBackgroundPaint(Color.WHITE);
        t.setLegendBackgroundPaint(Color.WHITE);
        t.setLegendItemPaint(INK);
        t.setPlotOutlinePaint(GRID);
        t.setDomainGridlinePaint(GRID);
        t.setRangeGridlinePaint(GRID);
        t.setAxisOffset(RectangleInsets.ZERO_INSETS);
        t.setBarPainter(new StandardBarPainter());
        t.setShadowVisible(false);
        return t;
    }
}
