package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The frame's HTML form: a header that wraps, and the charts in a grid that reflows. */
class FrameHtmlTest {

    private static final Pattern IMG = Pattern.compile(
            "<img alt='([^']*)' width='(\\d+)'[^>]*src='data:image/svg\\+xml;base64,([^']+)'>");
    private static final Pattern FONT = Pattern.compile("font-size: ?(\\d+(?:\\.\\d+)?)px");

    private final Samples samples = new Samples();

    @Test
    void chartsAreImagesInAGridOfColumnsNoNarrowerThanTheyWereDrawn() throws Exception {
        Frame f = samples.everyChart();
        Files.writeString(Path.of("target", "live-sample.html"), "<!doctype html><html><body>"
                + f.html() + "</body></html>", StandardCharsets.UTF_8);

        assertTrue(f.html().contains(
                "grid-template-columns:repeat(auto-fill,minmax(300px,1fr))"));
        assertTrue(f.html().contains("epoch 5/5 · step 3,000/5,000 (60 %)"));
        assertTrue(f.html().contains("elapsed 1 min 03 s · ETA 42 s"));
        Matcher m = IMG.matcher(f.html());
        List<String> titles = new java.util.ArrayList<>();
        while (m.find()) {
            titles.add(m.group(1));
            String svg = new String(Base64.getDecoder().decode(m.group(3)),
                    StandardCharsets.UTF_8);
            String root = svg.substring(0, svg.indexOf('>'));
            assertTrue(root.contains(" width='" + m.group(2) + "'"), root);
            assertTrue(m.group(0).contains("min-width:" + m.group(2) + "px"), m.group(1));
            Matcher font = FONT.matcher(svg);
            while (font.find()) {
                assertTrue(Double.parseDouble(font.group(1)) >= 10, m.group(1) + ": " + font
                        .group());
            }
        }
        assertEquals(7, titles.size(), titles.toString());
        assertEquals("loss", titles.get(0));
        assertTrue(titles.get(6).startsWith("pipeline stages"), titles.toString());
    }

    @Test
    void theSvgFormHoldsTheSameChartsAtTheFrameLayout() throws Exception {
        LiveDashboard d = samples.fed(1, 10, false, false);
        Frame f = d.frame();
        SvgText svg = new SvgText(f.svg());
        for (String title : List.of("loss", "cost (not priced)", "throughput", "CPU per worker",
                "memory per worker", "all-reduce per step")) {
            assertTrue(svg.hasText(title), title + " in " + svg.texts());
            assertTrue(f.html().contains("alt='" + title + "'"), title);
        }
        assertTrue(f.svg().contains("<svg x='600' y='356' "), "the 6th chart, 2nd row, 3rd column");
    }
}
