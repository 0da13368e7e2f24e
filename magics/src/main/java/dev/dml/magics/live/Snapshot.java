package dev.dml.magics.live;

import dev.dml.events.PipelineMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one frame shows, copied out of {@link LiveDashboard} under its lock so drawing
 * needs no lock. Series are {@code {xs, ys}} already reduced for drawing.
 */
record Snapshot(String job, int epoch, int epochs, long step, long totalSteps,
        double elapsedSeconds, double lastLoss, double lastExamplesPerSecond,
        long allReduceTotalBytes, long interNodeTotalBytes, double[][] loss,
        double[][] validationLoss, double[][] examplesPerSecond, double[][] allReduceMiB,
        double[][] interNodeMiB, List<WorkerInfo> workers,
        double[] cpuPercent, double[] gpuPercent, long[] rssBytes, long[] heapBytes,
        long stageStep, List<PipelineMetrics.StageTime> stages, List<Recovery> recoveries,
        List<String> notices, JobCosts cost, double[][] usdSpent, double secondsPerStep) {

    /**
     * Seconds left at the rate of the steps since the first; NaN when unknown (too few steps
     * to time, or no total).
     */
    double etaSeconds() {
        if (totalSteps <= 0 || !(secondsPerStep >= 0)) {
            return Double.NaN;
        }
        return Math.max(0, totalSteps - step) * secondsPerStep;
    }

    /** Share of the job done, 0 to 1; NaN when the total is unknown. */
    double progress() {
        return totalSteps <= 0 ? Double.NaN : Math.min(1.0, (double) step / totalSteps);
    }

    /** "epoch 2/5 · step 120/300" (totals left out when unknown). */
    String position() {
        String e = epochs > 0 ? epoch + "/" + epochs : Integer.toString(epoch);
        String s = totalSteps > 0
                ? Formats.count(step) + "/" + Formats.count(totalSteps)
                : Formats.count(step);
        return "epoch " + e + " · step " + s;
    }

    /**
     * Where the workers run, node by node: {@code 2 nodes · 10.0.0.5: ranks 0-1 · 10.0.0.6:
     * rank 2}; empty before the workers start.
     */
    String nodes() {
        Map<String, List<Integer>> byNode = new LinkedHashMap<>();
        for (WorkerInfo w : workers) {
            byNode.computeIfAbsent(w.nodeIp(), k -> new ArrayList<>()).add(w.rank());
        }
        if (byNode.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(byNode.size() == 1 ? "1 node"
                : byNode.size() + " nodes");
        byNode.forEach((ip, ranks) -> sb.append(" · ").append(ip).append(": ")
                .append(Formats.ranks(ranks)));
        String links = links(workers);
        return links.isEmpty() ? sb.toString() : sb.append(" · links: ").append(links)
                .toString();
    }

    /**
     * How the workers reach each other: {@code tcp}, {@code ray}, or each distinct mix (a
     * link that fell back, with why); empty before they joined, or for one worker.
     */
    static String links(List<WorkerInfo> workers) {
        return workers.stream().map(WorkerInfo::transport).filter(t -> !t.isEmpty())
                .distinct().collect(java.util.stream.Collectors.joining(" / "));
    }

    /**
     * The latest step's throughput, in the words the summary uses for it: "1,234 ex/s now"
     * (the summary also gives the mean over the run).
     */
    String throughputNow() {
        return Formats.count(lastExamplesPerSecond) + " ex/s now";
    }

    /** The plain-text fallback of a frame: position, loss, throughput, time left, and cost. */
    String line() {
        return position() + " · loss " + Formats.loss(lastLoss) + " · "
                + throughputNow() + " · ETA "
                + Formats.duration(etaSeconds()) + (cost.priced() ? " · " + costLine() : "");
    }

    /** The header's cost line: spent, rate, projected total, what recoveries cost. */
    String costLine() {
        return cost.line(etaSeconds(), recoveries);
    }
}
