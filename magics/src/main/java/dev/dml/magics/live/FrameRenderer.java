package dev.dml.magics.live;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.ViewBox;
import org.jfree.svg.util.DoubleConverter;

/**
 * Draws a {@link Snapshot}: each chart as its own SVG document ({@link #charts}), and the frame
 * as one standalone SVG document that holds them ({@link #svg}): a header with the job name, a
 * progress bar, the nodes the workers run on, the job's dollars and any notices, then the
 * charts in rows of three: loss, cost and throughput; CPU/GPU, memory and all-reduce; pipeline
 * stages only when stage samples exist. {@link FrameHtml} lays the same chart documents out in
 * a grid that reflows. The frame scales to the width of the output area: its {@code viewBox}
 * is the drawing's size, and its width is 100 % of the area, never more than {@value #WIDTH} px
 * where the page can cap it.
 */
final class FrameRenderer {

    static final int WIDTH = 900;
    /** One chart's drawn width: three to a row, and no narrower in a pane that reflows. */
    static final int CHART_WIDTH = 300;
    static final int ROW = 238;
    private static final int HEADER = 118;
    private static final int STAGE_ROW = 190;
    private static final int NOTICE = 18;
    private static final Color WARN = new Color(0xB3, 0x5C, 0x00);
    private static final Color TRACK = new Color(0xEC, 0xEF, 0xF3);
    private static final Color MUTED = new Color(0x6B, 0x6B, 0x6B);

    /**
     * One chart drawn alone.
     *
     * @param title what it shows, for an image's alternative text
     * @param svg a standalone SVG document of {@code width} x {@code height}
     * @param fullWidth true for a chart that spans a whole row (the pipeline stages)
     */
    record Chart(String title, String svg, int width, int height, boolean fullWidth) {
    }

    private FrameRenderer() {
    }

    /** Canvas height for this snapshot: taller with the stage row and with notices. */
    static int height(Snapshot s) {
        return header(s) + 2 * ROW + (s.stages().isEmpty() ? 0 : STAGE_ROW);
    }

    /** The header's height: a line more for each notice shown (the last two). */
    private static int header(Snapshot s) {
        return HEADER + NOTICE * Math.min(2, s.notices().size());
    }

    /**
     * The frame's charts, each drawn once as its own SVG document, in reading order.
     *
     * @param idPrefix prefix of the ids the documents define (clip paths), unique per
     *     dashboard so that frames inlined into one HTML page do not share ids
     */
    static List<Chart> charts(Snapshot s, String idPrefix) {
        List<Chart> out = new ArrayList<>();
        List<JFreeChart> row = List.of(Charts.loss(s), Charts.cost(s), Charts.throughput(s),
                Charts.utilisation(s), Charts.memory(s), Charts.allReduce(s));
        for (int i = 0; i < row.size(); i++) {
            out.add(chart(row.get(i), idPrefix + "c" + i + "-", CHART_WIDTH, ROW, false));
        }
        if (!s.stages().isEmpty()) {
            out.add(chart(Charts.stages(s), idPrefix + "c6-", WIDTH, STAGE_ROW, true));
        }
        return out;
    }

    static Chart chart(JFreeChart chart, String idPrefix, int w, int h,
            boolean fullWidth) {
        SVGGraphics2D g = canvas(w, h, idPrefix);
        chart.draw(g, new Rectangle2D.Double(4, 4, w - 8, h - 8));
        g.dispose();
        return new Chart(chart.getTitle().getText(),
                g.getSVGElement(idPrefix + "chart", true, new ViewBox(0, 0, w, h), null, null),
                w, h, fullWidth);
    }

    private static SVGGraphics2D canvas(int w, int h, String idPrefix) {
        SVGGraphics2D g = new SVGGraphics2D(w, h);
        g.setDefsKeyPrefix(idPrefix);
        // Two decimals are plenty at screen scale and keep each update message small.
        g.setGeomDoubleConverter(new DoubleConverter(2));
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        return g;
    }

    /** The frame as an {@code <svg>} element; draws its charts (see {@link #charts}). */
    static String svg(Snapshot s, String idPrefix) {
        return svg(s, idPrefix, charts(s, idPrefix));
    }

    /**
     * The frame as an {@code <svg>} element with its namespace declarations: the header, and
     * the charts already drawn nested in their places.
     *
     * @param idPrefix the prefix the charts were drawn with
     */
    static String svg(Snapshot s, String idPrefix, List<Chart> charts) {
        int height = height(s);
        SVGGraphics2D g = canvas(WIDTH, height, idPrefix);
        header(g, s);
        g.dispose();
        String frame = scalable(g, idPrefix + "frame", height);
        StringBuilder nested = new StringBuilder();
        int x = 0;
        int y = header(s);
        for (Chart c : charts) {
            if (x + c.width() > WIDTH) {
                x = 0;
                y += ROW;
            }
            nested.append(c.svg().replaceFirst("^<svg ", "<svg x='" + x + "' y='" + y + "' "));
            x += c.width();
        }
        int end = frame.lastIndexOf("</svg>");
        return frame.substring(0, end) + nested + frame.substring(end);
    }

    /**
     * The root element sized by its {@code viewBox}: 100 % of the output area's width, the
     * height following, so a narrow pane shows the whole frame smaller instead of cutting off
     * its right edge (JupyterLab shows SVG output as an image, which a fixed width overflows).
     */
    static String scalable(SVGGraphics2D g, String id, int height) {
        String svg = g.getSVGElement(id, false, new ViewBox(0, 0, WIDTH, height), null, null);
        return svg.replaceFirst("^<svg ", "<svg width='100%' style='max-width:" + WIDTH
                + "px;height:auto' ");
    }

    /** Job name and elapsed/ETA on top, the progress bar, then the latest numbers. */
    private static void header(SVGGraphics2D g, Snapshot s) {
        int left = 16;
        int right = WIDTH - 16;
        g.setColor(Charts.INK);
        g.setFont(new Font(Charts.FONT, Font.BOLD, 16));
        g.drawString(s.job(), left, 26);
        g.setFont(new Font(Charts.FONT, Font.PLAIN, 12));
        String time = time(s);
        FontMetrics fm = g.getFontMetrics();
        g.setColor(MUTED);
        g.drawString(time, right - fm.stringWidth(time), 26);

        double done = s.progress();
        RoundRectangle2D track = new RoundRectangle2D.Double(left, 36, right - left, 14, 7, 7);
        g.setColor(TRACK);
        g.fill(track);
        if (done > 0) {
            g.setColor(Charts.BLUE);
            g.fill(new RoundRectangle2D.Double(left, 36, (right - left) * done, 14, 7, 7));
        }
        g.setColor(Charts.INK);
        String position = position(s);
        g.drawString(position, left, 68);
        String numbers = numbers(s);
        g.drawString(numbers, right - fm.stringWidth(numbers), 68);
        g.setColor(MUTED);
        g.drawString(fit(s.nodes(), fm, right - left), left, 88);
        g.setColor(s.cost().priced() ? Charts.INK : MUTED);
        g.drawString(fit(s.costLine(), fm, right - left), left, 106);
        List<String> notices = s.notices();
        g.setColor(WARN);
        for (int i = Math.max(0, notices.size() - 2), line = 0; i < notices.size(); i++) {
            g.drawString(fit(notices.get(i), fm, right - left), left, 106 + NOTICE * ++line);
        }
    }

    /** "elapsed 1 min 03 s · ETA 42 s". */
    static String time(Snapshot s) {
        return "elapsed " + Formats.duration(s.elapsedSeconds()) + " · ETA "
                + Formats.duration(s.etaSeconds());
    }

    /** "epoch 2/5 · step 120/300 (40 %)". */
    static String position(Snapshot s) {
        double done = s.progress();
        return s.position()
                + (Double.isNaN(done) ? "" : " (" + Formats.percent(done * 100) + ")");
    }

    /** The latest loss and throughput, and the bytes the all-reduce moved. */
    static String numbers(Snapshot s) {
        return "loss " + Formats.loss(s.lastLoss()) + " · " + s.throughputNow()
                + " · all-reduce " + Formats.bytes(s.allReduceTotalBytes()) + " total"
                + (s.interNodeTotalBytes() > 0 ? ", " + Formats.bytes(s.interNodeTotalBytes())
                        + " across nodes" : "");
    }

    /** The text, cut with an ellipsis where it is wider than {@code width}. */
    private static String fit(String text, FontMetrics fm, int width) {
        if (fm.stringWidth(text) <= width) {
            return text;
        }
        String t = text;
        while (!t.isEmpty() && fm.stringWidth(t + "…") > width) {
            t = t.substring(0, t.length() - 1);
        }
        return t + "…";
    }
}
