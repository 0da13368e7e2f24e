package dev.dml.magics.live;

import static org.jfree.svg.SVGUtils.escapeForXML;

import dev.dml.events.Recovery;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table shown when a job ends, as plain HTML (no scripts, no styles) and as aligned text:
 * the job's figures, then one row per worker.
 */
public final class SummaryTable {

    private static final List<String> WORKER_HEADER =
            List.of("rank", "node", "pid", "mean CPU", "peak RSS", "peak heap");
    /** Added where a worker trained on a GPU; CPU-only jobs show no GPU columns. */
    private static final List<String> GPU_HEADER = List.of("mean GPU", "peak GPU memory");

    private SummaryTable() {
    }

    /** The summary as two HTML tables: the job's figures, then the workers. */
    public static String html(JobSummary s) {
        StringBuilder out = new StringBuilder("<table>\n");
        out.append("<caption>").append(escapeForXML(s.job())).append("</caption>\n");
        for (List<String> row : jobRows(s)) {
            out.append("<tr><th style=\"text-align:left\">").append(escapeForXML(row.get(0)))
                    .append("</th><td style=\"text-align:right\">")
                    .append(escapeForXML(row.get(1))).append("</td></tr>\n");
        }
        out.append("</table>\n<table>\n<tr>");
        workerHeader(s).forEach(h -> out.append("<th>").append(h).append("</th>"));
        out.append("</tr>\n");
        for (List<String> row : workerRows(s)) {
            out.append("<tr>");
            row.forEach(c -> out.append("<td style=\"text-align:right\">")
                    .append(escapeForXML(c)).append("</td>"));
            out.append("</tr>\n");
        }
        return out.append("</table>\n").toString();
    }

    /** The summary as aligned plain text: the job's figures, a blank line, the workers. */
    public static String text(JobSummary s) {
        List<List<String>> workers = new ArrayList<>();
        workers.add(workerHeader(s));
        workers.addAll(workerRows(s));
        return aligned(jobRows(s)) + "\n" + aligned(workers);
    }

    private static List<List<String>> jobRows(JobSummary s) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("job", s.job()));
        rows.add(List.of("status", s.stopped() ? "stopped" : "finished"));
        rows.add(List.of("wall time", Formats.duration(s.wallSeconds())));
        rows.add(List.of("steps", Formats.count(s.steps())));
        rows.add(List.of("final loss", Formats.loss(s.finalLoss())));
        if (!Double.isNaN(s.accuracy())) {
            rows.add(List.of("accuracy", Formats.fraction(s.accuracy())));
        }
        if (!Double.isNaN(s.auc())) {
            rows.add(List.of("AUC", String.format(Locale.ROOT, "%.4f", s.auc())));
        }
        if (s.regression().known()) {
            rows.add(List.of("RMSE", Formats.loss(s.regression().rmse())));
            rows.add(List.of("MAE", Formats.loss(s.regression().mae())));
            rows.add(List.of("R²", Formats.loss(s.regression().r2())));
        }
        // The progress line's words: "now" is the last step's rate; the mean is over the run.
        rows.add(List.of("throughput", Formats.count(s.examplesPerSecond())
                + " ex/s mean (warm-up included)" + (Double.isNaN(s.lastExamplesPerSecond())
                        ? "" : " · " + Formats.count(s.lastExamplesPerSecond())
                                + " ex/s now (last step)")));
        if (!s.links().isEmpty()) {
            rows.add(List.of("links", s.links()));
        }
        if (!s.recoveries().isEmpty()) {
            long lost = s.recoveries().stream().filter(r -> !r.preemption()).count();
            rows.add(List.of("recoveries", lost + " lost, " + (s.recoveries().size() - lost)
                    + " pre-empted · " + String.format(Locale.ROOT, "%.1f s", s.recoveries()
                            .stream().mapToDouble(Recovery::seconds).sum()) + " · "
                    + Formats.count(s.recoveries().stream().mapToLong(Recovery::stepsRedone)
                            .sum()) + " steps redone"));
        }
        long retries = s.workers().stream().mapToLong(WorkerStats::storageRetries).sum();
        if (retries > 0) {
            rows.add(List.of("S3 retries", Formats.count(retries)
                    + " requests tried again after a transient failure"));
        }
        rows.addAll(costRows(s));
        return rows;
    }

    /** Total dollars, dollars per epoch and what recoveries cost, when the nodes are priced. */
    private static List<List<String>> costRows(JobSummary s) {
        JobCosts c = s.cost();
        if (!c.priced()) {
            return List.of(List.of("cost", "$0 (nodes not priced)"));
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("cost", Formats.usd(c.usdSpent()) + " at " + Formats.usd(
                c.usdPerHour()) + "/h (" + c.nodes() + ")"));
        if (s.epochsRun() > 0) {
            rows.add(List.of("cost/epoch", Formats.usd(c.usdSpent() / s.epochsRun())));
        }
        if (!s.recoveries().isEmpty()) {
            rows.add(List.of("redo cost", Formats.usd(c.usdLost(s.recoveries())) + " ("
                    + Formats.duration(c.secondsLost(s.recoveries())) + " lost)"));
        }
        return rows;
    }

    private static boolean gpus(JobSummary s) {
        return s.workers().stream().anyMatch(WorkerStats::hasGpu);
    }

    private static List<String> workerHeader(JobSummary s) {
        List<String> h = new ArrayList<>(WORKER_HEADER);
        if (gpus(s)) {
            h.addAll(GPU_HEADER);
        }
        return h;
    }

    private static List<List<String>> workerRows(JobSummary s) {
        boolean gpus = gpus(s);
        List<List<String>> rows = new ArrayList<>();
        for (WorkerStats w : s.workers()) {
            List<String> row = new ArrayList<>(List.of(Integer.toString(w.rank()), w.node(),
                    Long.toString(w.pid()), Formats.percent(w.meanCpuPercent()),
                    Formats.bytes(w.peakRssBytes()), Formats.bytes(w.peakHeapBytes())));
            if (gpus) {
                row.add(w.hasGpu() ? Formats.percent(w.meanGpuPercent()) : Formats.DASH);
                row.add(w.hasGpu() ? Formats.bytes(w.peakGpuMemoryBytes()) : Formats.DASH);
            }
            rows.add(row);
        }
        return rows;
    }

    /** Rows as columns padded to their widest cell, two spaces apart. */
    private static String aligned(List<List<String>> rows) {
        int columns = rows.get(0).size();
        int[] width = new int[columns];
        rows.forEach(r -> {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], r.get(c).length());
            }
        });
        StringBuilder out = new StringBuilder();
        for (List<String> r : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                line.append(r.get(c)).append(" ".repeat(width[c] - r.get(c).length() + 2));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
