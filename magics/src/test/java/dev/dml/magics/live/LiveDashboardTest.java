package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.events.ProcessSample;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.awt.Color;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class LiveDashboardTest {

    private final Samples samples = new Samples();

    /** How many bars ({@code <rect>}) are filled with colour {@code c}. */
    private static long bars(String svg, Color c) {
        String fill = "fill:rgb(" + c.getRed() + "," + c.getGreen() + "," + c.getBlue() + ")";
        return Pattern.compile("<rect [^>]*" + Pattern.quote(fill)).matcher(svg).results()
                .count();
    }

    private static long count(String haystack, String needle) {
        return (haystack.length() - haystack.replace(needle, "").length()) / needle.length();
    }

    @Test
    void writesASampleFrameWithEveryChart() throws Exception {
        Frame f = samples.everyChart();
        Files.writeString(Path.of("target", "live-sample.svg"), f.svg(), StandardCharsets.UTF_8);

        SvgText svg = new SvgText(f.svg());
        assertTrue(svg.hasText("fraud-mlp"));
        assertTrue(svg.hasText("epoch 5/5 · step 3,000/5,000 (60 %)"), svg.texts().toString());
        assertTrue(svg.hasText("elapsed 1 min 03 s · ETA 42 s"), svg.texts().toString());
        assertTrue(svg.hasText("validation"));
        assertTrue(svg.hasText("CPU and GPU per worker"));
        assertTrue(svg.hasText("2 nodes · 10.0.0.5: ranks 0-1 · 10.0.0.6: ranks 2-3"),
                svg.texts().toString());
        // 4 MiB per step, 3 of them across nodes (see Samples.step)
        assertTrue(svg.hasText("within nodes") && svg.hasText("across nodes"));
        assertTrue(svg.texts().stream().anyMatch(t -> t.endsWith(
                "all-reduce 11.72 GiB total, 8.79 GiB across nodes")), svg.texts().toString());
        // Stages 0..3 sent 3..6 MiB (see Samples.stages()).
        assertTrue(svg.hasText("stage 2 · 5.0 MiB"), svg.texts().toString());
        assertTrue(svg.hasTextStartingWith("pipeline stages at step 3,000 · bubble "));
        assertTrue(svg.hasTextStartingWith("pipeline stages at step 3,000")
                && svg.texts().stream().anyMatch(t -> t.endsWith("activations 18.0 MiB")));
    }

    @Test
    void leavesOutValidationGpuAndStagesWhenNotReported() throws Exception {
        LiveDashboard d = samples.fed(2, 200, false, false);
        SvgText svg = new SvgText(d.frame().svg());
        for (String title : List.of("loss", "throughput", "CPU per worker",
                "memory per worker", "all-reduce per step", "RSS", "heap used")) {
            assertTrue(svg.hasText(title), title + " in " + svg.texts());
        }
        assertFalse(svg.hasText("validation"));
        assertFalse(svg.hasText("train"), "no legend for a single loss series");
        assertFalse(svg.hasText("GPU"));
        assertFalse(svg.hasTextStartingWith("pipeline stages"));
        for (String axis : List.of("step", "examples/s", "bytes", "% (100 = one core)")) {
            assertTrue(svg.hasText(axis), axis);
        }
    }

    @Test
    void aJobOnOneNodeDrawsOneAllReduceSeries() throws Exception {
        LiveDashboard d = samples.dashboard(1, 10);
        d.onStart(List.of(new WorkerInfo(0, 3, 1, "host", "n", "10.0.0.5"),
                new WorkerInfo(1, 3, 2, "host", "m", "10.0.0.6"),
                new WorkerInfo(2, 3, 3, "host", "n", "10.0.0.5")));
        d.onStep(Samples.step(1, 1, 0.5, 100, 0));
        SvgText svg = new SvgText(d.frame().svg());
        assertTrue(svg.hasText("2 nodes · 10.0.0.5: ranks 0, 2 · 10.0.0.6: rank 1"),
                svg.texts().toString());
        assertFalse(svg.hasText("across nodes"), "nothing crossed nodes");
        assertFalse(svg.texts().stream().anyMatch(t -> t.contains("across nodes")));
    }

    @Test
    void eachWorkerKeepsItsColourInEveryPerWorkerChart() throws Exception {
        LiveDashboard d = samples.fed(1, 10, false, true);
        String svg = d.frame().svg();
        for (WorkerInfo w : Samples.WORKERS) {
            // One bar each in the CPU and the memory chart, in the worker's colour.
            assertEquals(2, bars(svg, Charts.worker(w.rank())), "rank " + w.rank());
        }
        assertEquals(List.of("0", "1", "2", "3"), new SvgText(svg).texts().stream()
                .filter(t -> t.matches("\\d")).distinct().sorted().limit(4).toList());
    }

    @Test
    void drawsALongHistoryWithABoundedNumberOfPoints() throws Exception {
        LiveDashboard d = samples.fed(5, 5_000, true, false);
        Frame f = d.frame();
        List<String> paths = new SvgText(f.svg()).paths();
        // A constant series (the all-reduce's bytes within and across nodes here) keeps one
        // point per bucket, not two.
        long longLines = paths.stream().filter(p -> count(p, "L") > 150).count();
        assertEquals(4, longLines,
                "loss, throughput and the all-reduce's two kinds of link are drawn downsampled");
        paths.forEach(p -> assertTrue(count(p, "L") < LiveDashboard.MAX_POINTS, p));
        assertTrue(new SvgText(f.svg()).hasText("5,000"), "the step axis reaches the last step");
    }

    @Test
    void progressLineGivesEpochStepLossThroughputAndEta() {
        LiveDashboard d = samples.started(4, 400);
        assertEquals("epoch 0/4 · step 0/400 · loss – · – ex/s now · ETA –",
                d.frame().text());
        for (int s = 1; s <= 100; s++) {
            d.onStep(Samples.step(1, s, 0.5, 1_234.4, 0));
        }
        samples.advanceSeconds(10);
        // 99 steps after the first took 10 s: 300 more take 30 s.
        assertEquals("epoch 1/4 · step 100/400 · loss 0.5000 · 1,234 ex/s now · ETA 30 s",
                d.frame().text());
        samples.advanceSeconds(290);
        assertTrue(d.frame().text().endsWith("ETA 15 min 09 s"), "300 s per 99 steps");
    }

    @Test
    void sameSamplesDrawTheSameFrameAndOnlyNewOnesMakeItDirty() {
        LiveDashboard d = samples.fed(1, 50, true, false);
        assertTrue(d.isDirty());
        Frame first = d.frame();
        assertFalse(d.isDirty());
        assertEquals(first, d.frame(), "no timestamps or random ids in a frame");
        d.onPipeline(Samples.pipeline(50));
        assertTrue(d.isDirty());
        assertNotEquals(first.svg(), d.frame().svg());
    }

    @Test
    void frameNamesTheOldestReportItShowsFirst() {
        LiveDashboard d = samples.started(1, 10);
        assertEquals(0, d.frame().oldestUnshownReportMillis());
        d.onStep(report(1, 5_000));
        d.onStep(report(2, 4_000));
        d.onStep(report(3, 0));
        assertEquals(4_000, d.frame().oldestUnshownReportMillis());
        d.onStep(report(4, 6_000));
        assertEquals(6_000, d.frame().oldestUnshownReportMillis());
        assertEquals(0, d.frame().oldestUnshownReportMillis());
    }

    private static StepMetrics report(long step, long at) {
        return Samples.step(1, step, 0.3, 100, at);
    }

    @Test
    void summaryComesFromTheSamples() {
        LiveDashboard d = samples.dashboard(2, 4);
        d.onStart(List.of(new WorkerInfo(0, 2, 11, "node-a"), new WorkerInfo(1, 2, 22, "node-b")));
        long mib = 1L << 20;
        d.onStep(new StepMetrics(1, 1, 0.9f, 100, 100, 1, 1, 0, 0,
                List.of(new ProcessSample(50, 10 * mib, 100 * mib),
                        new ProcessSample(90, 20 * mib, 300 * mib)), 0));
        d.onStep(new StepMetrics(1, 2, 0.7f, 100, 100, 1, 1, 0, 0,
                List.of(new ProcessSample(70, 30 * mib, 90 * mib),
                        new ProcessSample(110, 5 * mib, 200 * mib)), 0));
        d.onEpoch(new EpochMetrics(1, 2, 2, 0.8f, 10, 1_000, 0.75f, 0.8, 0.85));
        d.onStep(Samples.step(2, 3, 0.5, 100, 0));
        d.onEpoch(new EpochMetrics(2, 3, 1, 0.5f, 30, 3_000, 0.6f, 0.9, Double.NaN));

        JobSummary s = d.summary("fraud", true, 41.5);
        assertEquals(3, s.steps());
        assertEquals(0.5, s.finalLoss());
        assertEquals(0.9, s.accuracy());
        assertEquals(0.85, s.auc(), "the last AUC that was known");
        assertEquals((1_000 * 10 + 3_000 * 30) / 40.0, s.examplesPerSecond(), 1e-9);
        assertEquals(List.of(new WorkerStats(0, "node-a", 11, 60, 100 * mib, 30 * mib),
                new WorkerStats(1, "node-b", 22, 100, 300 * mib, 20 * mib)), s.workers());
    }

    @Test
    void aRecoveryTakesThePlotsBackAndMarksTheStep() throws Exception {
        LiveDashboard d = samples.started(1, 100);
        for (long s = 1; s <= 40; s++) {
            d.onStep(Samples.step(1, s, 1.0, 100, 0));
        }
        List<WorkerInfo> after = List.of(new WorkerInfo(0, 2, 4101, "node-a"),
                new WorkerInfo(1, 2, 7777, "node-c"));
        d.onRecovery(new Recovery(40, 30, 12, 3.5, "Rank 1 lost", "a peer's snapshot", false,
                after));
        assertTrue(d.progress().startsWith("epoch 1/1 · step 30/100"), d.progress());
        for (long s = 31; s <= 35; s++) {
            d.onStep(Samples.step(1, s, 0.5, 100, 0));
        }
        SvgText svg = new SvgText(d.frame().svg());
        assertTrue(svg.hasText("recovered · 12 redone"), svg.texts().toString());
        assertTrue(svg.hasTextStartingWith("epoch 1/1 · step 35/100"), svg.texts().toString());
        JobSummary summary = d.summary("fraud", false, 20);
        assertEquals(35, summary.steps());
        assertEquals(0.5, summary.finalLoss(), 1e-6);
        assertEquals(1, summary.recoveries().size());
        assertEquals(List.of(4101L, 7777L), summary.workers().stream().map(WorkerStats::pid)
                .toList());
    }

    @Test
    void anElasticJobsNewSizeShowsItsWorkersAndALine() throws Exception {
        LiveDashboard d = samples.dashboard(1, 100);
        d.onStart(Samples.WORKERS.subList(0, 2));
        d.onStep(Samples.step(1, 1, 1.0, 100, 0));
        d.onResize(new Resize(1, 2, 4, "grew onto room that joined the cluster",
                Samples.WORKERS));
        assertEquals(List.of("Step 1: grew from 2 to 4 workers (grew onto room that joined the"
                + " cluster)."), d.notices());
        SvgText svg = new SvgText(d.frame().svg());
        assertTrue(svg.hasTextStartingWith("Step 1: grew from 2 to 4"), svg.texts().toString());
        assertTrue(svg.hasText("2 nodes · 10.0.0.5: ranks 0-1 · 10.0.0.6: ranks 2-3"),
                "the new node is listed: "
                + svg.texts());
    }
}
