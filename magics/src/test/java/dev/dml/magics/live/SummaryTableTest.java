package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.RegressionMetrics;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

class SummaryTableTest {

    private static final long MIB = 1L << 20;

    private final JobSummary summary = new JobSummary("fraud <mlp>", false, 125.4, 3_000,
            0.123456, 0.934, 0.9712, 12_345.6, List.of(
                    new WorkerStats(0, "node-a", 4101, 87.4, 912 * MIB, 256 * MIB),
                    new WorkerStats(1, "node-b", 5201, 91.6, 1_536 * MIB, 300 * MIB)),
            List.of(new Recovery(120, 110, 14, 4.5, "Rank 1 lost", "a peer's snapshot", false,
                    List.of()), new Recovery(300, 300, 0, 2.25, "Rank 0 got a pre-emption notice",
                    "a peer's snapshot", true, List.of())),
            new JobCosts(1.25, 7.2, true, true, 1.0, "1 node: aws g5.xlarge spot"), 2.5);

    @Test
    void textListsTheJobThenOneAlignedRowPerWorker() {
        String text = SummaryTable.text(summary);
        for (String expected : List.of("job         fraud <mlp>", "status      finished",
                "wall time   2 min 05 s", "steps       3,000", "final loss  0.1235",
                "accuracy    93.4 %", "AUC         0.9712",
                "throughput  12,346 ex/s mean (warm-up included)",
                "recoveries  1 lost, 1 pre-empted · 6.8 s · 14 steps redone",
                "cost        $1.25 at $7.20/h (1 node: aws g5.xlarge spot)",
                "cost/epoch  $0.5000", "redo cost   $0.0415 (21 s lost)",
                "rank  node    pid   mean CPU  peak RSS   peak heap",
                "0     node-a  4101  87 %      912.0 MiB  256.0 MiB",
                "1     node-b  5201  92 %      1.50 GiB   300.0 MiB")) {
            assertTrue(text.contains(expected + "\n"), expected + " in\n" + text);
        }
    }

    @Test
    void progressLineAndSummaryNameBothThroughputsInTheSameWords() {
        // Warm-up: the first steps are slow, so the mean over the run is below the last rate.
        LiveDashboard d = new LiveDashboard("fraud", 1, 4);
        double[] rates = {5_000, 40_000, 53_190, 53_190};
        for (int s = 1; s <= 4; s++) {
            d.onStep(Samples.step(1, s, 0.5, rates[s - 1], 0));
        }
        assertTrue(d.progress().contains("· 53,190 ex/s now ·"), d.progress());
        String text = SummaryTable.text(d.summary("fraud", false, 2));
        assertTrue(text.contains("throughput  37,845 ex/s mean (warm-up included) · 53,190 ex/s"
                + " now (last step)\n"), text);
    }

    @Test
    void s3RetriesOfTheWorkersShowAsOneRowAndNoneShowsNoRow() {
        LiveDashboard d = new LiveDashboard("clicks", 1, 2);
        d.onStart(Samples.WORKERS.subList(0, 2));
        List<dev.dml.events.ProcessSample> early = List.of(
                new dev.dml.events.ProcessSample(90, 1 << 20, 1 << 20).withStorageRetries(2),
                new dev.dml.events.ProcessSample(90, 1 << 20, 1 << 20));
        List<dev.dml.events.ProcessSample> later = List.of(
                new dev.dml.events.ProcessSample(90, 1 << 20, 1 << 20).withStorageRetries(3),
                new dev.dml.events.ProcessSample(90, 1 << 20, 1 << 20).withStorageRetries(1));
        String quiet = SummaryTable.text(summaryAfter(new LiveDashboard("clicks", 1, 2),
                List.of(new dev.dml.events.ProcessSample(90, 1 << 20, 1 << 20))));
        assertFalse(quiet.contains("S3 retries"), quiet);
        d.onStep(new StepMetrics(1, 1, 0.5f, 100, 1000, 1, 1, 0, 0, early, 0));
        String text = SummaryTable.text(summaryAfter(d, later));
        // each worker's count is its process's total so far: 3 + 1, not 2 + 3 + 1
        assertTrue(text.contains("S3 retries  4 requests tried again after a transient"
                + " failure\n"), text);
    }

    private static JobSummary summaryAfter(LiveDashboard d,
            List<dev.dml.events.ProcessSample> samples) {
        d.onStep(new StepMetrics(1, 2, 0.5f, 100, 1000, 1, 1, 0, 0, samples, 0));
        return d.summary("clicks", false, 2);
    }

    @Test
    void aRegressionShowsItsRmseMaeAndR2InsteadOfAccuracy() {
        LiveDashboard d = new LiveDashboard("diabetes", 2, 10);
        d.onEpoch(new EpochMetrics(1, 5, 5, 3000f, 1.0, 500, 2900f, Double.NaN, Double.NaN,
                new RegressionMetrics(54.3219, 43.21, 0.4567)));
        d.onEpoch(new EpochMetrics(2, 10, 5, 2900f, 1.0, 500, Float.NaN, Double.NaN, Double.NaN));
        String text = SummaryTable.text(d.summary("diabetes", false, 2.0));
        for (String expected : List.of("RMSE        54.3219", "MAE         43.2100",
                "R²          0.4567")) {
            assertTrue(text.contains(expected + "\n"), expected + " in\n" + text);
        }
        assertFalse(text.contains("accuracy"), text);
    }

    @Test
    void htmlIsPlainTablesWithTheSameFigures() throws Exception {
        String html = SummaryTable.html(summary);
        assertFalse(html.contains("<script"));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new InputSource(new StringReader("<div>" + html + "</div>")));
        assertEquals(2, doc.getElementsByTagName("table").getLength());
        assertEquals("fraud <mlp>", doc.getElementsByTagName("caption").item(0)
                .getTextContent());
        String all = doc.getDocumentElement().getTextContent();
        for (String expected : List.of("finished", "2 min 05 s", "0.1235", "93.4 %", "0.9712",
                "12,346 ex/s", "node-b", "5201", "92 %", "1.50 GiB", "300.0 MiB")) {
            assertTrue(all.contains(expected), expected + " in " + all);
        }
    }

    @Test
    void unknownFiguresAreLeftOutOrDashed() {
        JobSummary stopped = new JobSummary("j", true, 3, 0, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, List.of(new WorkerStats(0, "?", 0, Double.NaN, 0, 0)),
                List.of(), JobCosts.NONE, Double.NaN);
        String text = SummaryTable.text(stopped);
        assertTrue(text.contains("cost        $0 (nodes not priced)\n"), text);
        assertTrue(text.contains("status      stopped\n"), text);
        assertTrue(text.contains("final loss  –\n"), text);
        assertFalse(text.contains("accuracy"), text);
        assertFalse(text.contains("AUC"), text);
        assertFalse(text.contains("recoveries"), text);
        assertTrue(text.contains("0     ?     0    –         0 B       0 B\n"), text);
    }
}
