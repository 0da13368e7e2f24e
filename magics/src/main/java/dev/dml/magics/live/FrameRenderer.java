package dev.dml.magics.live;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.ViewBox;
import org.jfree.svg.util.DoubleConverter;

/**
 * Draws a {@link Snapshot} as one standalone SVG document: a header with the job name, a
 * progress bar, the nodes the workers run on, the job's dollars and any notices, then a grid of
 * charts. Rows: loss, cost and throughput; CPU/GPU, memory and all-reduce; pipeline stages only
 * when stage samples exist. The frame scales to the width of the output area: its {@code
 * viewBox} is the drawing's size, and its width is 100 % of the area, never more than {@value
 * #WIDTH} px where the page can cap it.
 */
final class FrameRenderer {

    static final int WIDTH = 900;
    private static final int HEADER = 118;
    private static final int ROW = 238;
    private static final int STAGE_ROW = 190;
    private static final int NOTICE = 18;
    private static final Color WARN = new Color(0xB3, 0x5C, 0x00);
    private static final Color TRACK = new Color(0xEC, 0xEF, 0xF3);
    private static final Color MUTED = new Color(0x6B, 0x6B, 0x6B);

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
     * The frame as an {@code <svg>} element with its namespace declarations.
     *
     * @param idPrefix prefix of the ids the SVG defines (clip paths), unique per dashboard so
     *     that frames inlined into one HTML page do not share ids
     */
    static String svg(Snapshot s, String idPrefix) {
        int height = height(s);
        SVGGraphics2D g = new SVGGraphics2D(WIDTH, height);
        g.setDefsKeyPrefix(idPrefix);
        // Two decimals are plenty at screen scale and keep each update message small.
        g.setGeomDoubleConverter(new DoubleConverter(2));
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, height);
        header(g, s);
        int y = header(s);
        draw(g, Charts.loss(s), 0, y, 380, ROW);
        draw(g, Charts.cost(s), 380, y, 260, ROW);
        draw(g, Charts.throughput(s), 640, y, WIDTH - 640, ROW);
        y += ROW;
        draw(g, Charts.utilisation(s), 0, y, 300, ROW);
        draw(g, Charts.memory(s), 300, y, 300, ROW);
        draw(g, Charts.allReduce(s), 600, y, 300, ROW);
        if (!s.stages().isEmpty()) {
            draw(g, Charts.stages(s), 0, y + ROW, WIDTH, STAGE_ROW);
        }
        g.dispose();
        return scalable(g, idPrefix + "frame", height);
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

    private static void draw(SVGGraphics2D g, JFreeChart chart, int x, int y, int w, int h) {
        chart.draw(g, new Rectangle2D.Double(x + 4, y + 4, w - 8, h - 8));
    }

    /** Job name and elapsed/ETA on top, the progress bar, then the latest numbers. */
    private static void header(SVGGraphics2D g, Snapshot s) {
        int left = 16;
        int right = WIDTH - 16;
        g.setColor(Charts.INK);
        g.setFont(new Font(Charts.FONT, Font.BOLD, 16));
        g.drawString(s.job(), left, 26);
        g.setFont(new Font(Charts.FONT, Font.PLAIN, 12));
        String time = "elapsed " + Formats.duration(s.elapsedSeconds()) + " · ETA "
                + Formats.duration(s.etaSeconds());
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
        String position = s.position()
                + (Double.isNaN(done) ? "" : " (" + Formats.percent(done * 100) + ")");
        g.drawString(position, left, 68);
        String numbers = "loss " + Formats.loss(s.lastLoss()) + " · "
                + s.throughputNow() + " · all-reduce "
                + Formats.bytes(s.allReduceTotalBytes()) + " total"
                + (s.interNodeTotalBytes() > 0 ? ", " + Formats.bytes(s.interNodeTotalBytes())
                        + " across nodes" : "");
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
