package dev.dml.magics.live;

import static org.jfree.svg.SVGUtils.escapeForXML;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * A frame as HTML that reflows (the notebook's preferred form of it): the header as text that
 * wraps, then the charts, each its own SVG image, in a CSS grid of as many {@value
 * FrameRenderer#CHART_WIDTH} px columns as the output area holds. A chart is never drawn
 * narrower than it was drawn, so its 10 px text stays at least 10 px in a narrow pane; the
 * frame's single SVG document ({@link FrameRenderer#svg}) is the fallback for front ends
 * without HTML. No scripts.
 */
final class FrameHtml {

    private static final String MUTED = "#6b6b6b";
    private static final String WARN = "#b35c00";
    private static final String LINE = "display:flex;flex-wrap:wrap;justify-content:space-between;"
            + "column-gap:16px";

    private FrameHtml() {
    }

    /** The frame's HTML, with the charts already drawn for its SVG form. */
    static String html(Snapshot s, List<FrameRenderer.Chart> charts) {
        StringBuilder h = new StringBuilder("<div class='dml-live' style='max-width:")
                .append(FrameRenderer.WIDTH).append("px;font-family:sans-serif;font-size:12px;"
                        + "line-height:1.5;color:#333;background:#fff'>");
        h.append("<div style='").append(LINE).append("'><b style='font-size:16px'>")
                .append(text(s.job())).append("</b><span style='color:").append(MUTED)
                .append("'>").append(text(FrameRenderer.time(s))).append("</span></div>");
        double done = s.progress();
        h.append("<div style='background:#eceff3;border-radius:7px;height:14px;margin:4px 0'>");
        if (done > 0) {
            h.append(String.format(Locale.ROOT, "<div style='width:%.1f%%;height:14px;"
                    + "border-radius:7px;background:#4e79a7'></div>", done * 100));
        }
        h.append("</div><div style='").append(LINE).append("'><span>")
                .append(text(FrameRenderer.position(s))).append("</span><span>")
                .append(text(FrameRenderer.numbers(s))).append("</span></div>");
        line(h, s.nodes(), MUTED);
        line(h, s.costLine(), s.cost().priced() ? "#333" : MUTED);
        List<String> notices = s.notices();
        for (int i = Math.max(0, notices.size() - 2); i < notices.size(); i++) {
            line(h, notices.get(i), WARN);
        }
        h.append("<div style='display:grid;grid-template-columns:repeat(auto-fill,minmax(")
                .append(FrameRenderer.CHART_WIDTH).append("px,1fr));margin-top:4px'>");
        for (FrameRenderer.Chart c : charts) {
            // A chart wider than the pane (the stages, a whole row) scrolls, not shrinks.
            h.append(c.fullWidth() ? "<div style='grid-column:1/-1;overflow-x:auto'>" : "")
                    .append("<img alt='").append(text(c.title())).append("' width='")
                    .append(c.width()).append("' height='").append(c.height())
                    .append("' style='width:100%;height:auto;display:block;min-width:")
                    .append(c.width()).append("px' src='data:image/svg+xml;base64,")
                    .append(Base64.getEncoder().encodeToString(c.svg().getBytes(
                            StandardCharsets.UTF_8)))
                    .append(c.fullWidth() ? "'></div>" : "'>");
        }
        return h.append("</div></div>").toString();
    }

    private static void line(StringBuilder h, String text, String colour) {
        if (!text.isEmpty()) {
            h.append("<div style='color:").append(colour).append("'>").append(text(text))
                    .append("</div>");
        }
    }

    private static String text(String s) {
        return escapeForXML(s);
    }
}
