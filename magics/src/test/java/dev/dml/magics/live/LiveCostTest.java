package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.JobCost;
import dev.dml.events.Recovery;
import java.io.StringReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.xml.sax.InputSource;

/** The job's dollars in the live frame and the summary, and a frame that fits narrow panes. */
class LiveCostTest {

    private final Samples samples = new Samples();

    private void steps(LiveDashboard d, long from, long to) {
        for (long s = from; s <= to; s++) {
            d.onStep(samples.step((int) ((s - 1) / 100) + 1, s, false));
        }
    }

    /** 200 of 400 steps in 100 s at $7.20/h on a spot node, with one pre-emption. */
    private LiveDashboard pricedJob() {
        LiveDashboard d = samples.started(4, 400);
        steps(d, 1, 150);
        d.onRecovery(new Recovery(150, 140, 10, 3.0, "Rank 1 got a pre-emption notice",
                "a peer's snapshot", true, Samples.WORKERS));
        steps(d, 141, 200);
        d.onCost(new JobCost(100, 7.2, 0.1, 50, 0.5, true, true, "1 node: aws g5.xlarge spot"));
        d.onCost(new JobCost(200, 7.2, 0.2, 100, 0.5, true, true, "1 node: aws g5.xlarge spot"));
        samples.advanceSeconds(100);
        return d;
    }

    @Test
    void theHeaderShowsSpentRateProjectionAndWhatRecoveriesCost() throws Exception {
        SvgText svg = new SvgText(pricedJob().frame().svg());
        // 199 steps after the first in 100 s, 200 left: ETA 100.5 s at $7.20/h, $0.201 more;
        // the pre-emption took 3 s and 10 steps of 0.5 s
        assertTrue(svg.hasText("$0.2000 spent · $7.20/h (spot) · projected $0.4010 at this rate"
                + " · recoveries cost $0.0160 (8 s lost)"), svg.texts().toString());
        assertTrue(svg.hasText("cost"), "the cost chart beside the loss");
        assertTrue(svg.hasText("minutes") && svg.hasText("$"), svg.texts().toString());
        assertTrue(pricedJob().progress().endsWith("· $0.2000 spent · $7.20/h (spot) ·"
                + " projected $0.4010 at this rate · recoveries cost $0.0160 (8 s lost)"));
    }

    @Test
    void theSummaryAddsTotalDollarsPerEpochAndTheRedoCost() {
        JobSummary s = pricedJob().summary("fraud", false, 100);
        assertEquals(2.0, s.epochsRun(), 1e-9);
        String text = SummaryTable.text(s);
        for (String row : java.util.List.of(
                "cost        $0.2000 at $7.20/h (1 node: aws g5.xlarge spot)",
                "cost/epoch  $0.1000", "redo cost   $0.0160 (8 s lost)")) {
            assertTrue(text.contains(row + "\n"), row + " in\n" + text);
        }
    }

    @Test
    void anUnpricedJobSaysSoAndCostsNothing() throws Exception {
        LiveDashboard d = samples.started(1, 100);
        steps(d, 1, 50);
        d.onCost(new JobCost(50, 0, 0, 10, 0.2, false, false, "1 node: not priced"));
        SvgText svg = new SvgText(d.frame().svg());
        assertTrue(svg.hasText("cost: $0, nodes not priced (%dml cluster price prices them)"),
                svg.texts().toString());
        assertTrue(svg.hasText("cost (not priced)"));
        assertFalse(d.progress().contains("$"), d.progress());
        assertTrue(SummaryTable.text(d.summary("j", false, 10))
                .contains("cost        $0 (nodes not priced)\n"));
    }

    @Test
    void theFrameScalesToTheOutputAreasWidth() throws Exception {
        String svg = pricedJob().frame().svg();
        Element root = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader(svg))).getDocumentElement();
        assertEquals("100%", root.getAttribute("width"));
        assertEquals("", root.getAttribute("height"), "a fixed height would letterbox it");
        assertEquals("max-width:900px;height:auto", root.getAttribute("style"));
        Matcher box = Pattern.compile("0 0 900 (\\d+)")
                .matcher(root.getAttribute("viewBox"));
        assertTrue(box.matches(), root.getAttribute("viewBox"));
        assertTrue(Integer.parseInt(box.group(1)) > 500, "the whole drawing is in the box");
    }
}
