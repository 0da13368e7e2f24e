package dev.dml.bench;

import dev.dml.events.EpochMetrics;
import com.google.gson.Gson;
import dev.dml.magics.DmlBackend;
import dev.dml.magics.PreparedJob;
import dev.dml.magics.RunningJob;
import dev.dml.magics.TrainRequest;
import dev.dml.magics.live.DisplaySink;
import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.train.result.TrainResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * P7: the cost of {@code %dml train}'s live plots, on the magic's own path (request, the
 * kernel's Ray backend found through {@code META-INF/services}, the dashboard, the throttled
 * live cell, each frame encoded as the display message's JSON).
 *
 * <ul>
 *   <li>latency: from the moment the last worker reported a step's loss (its wall clock) to the
 *       update that shows it leaving for the kernel's socket; p50 and p95 (goal p95 at most 1 s);
 *   <li>ratio: training throughput with live plots over without, the same job alternated (goal
 *       at least 0.98).
 * </ul>
 */
final class LivePlotCost implements Benchmark {

    private static final int PAIRS = 5;
    private static final String JOB = "--label is_fraud --hidden 64,32 --workers 2 --epochs 2"
            + " --batch-size 64 --lr 0.005";

    @Override
    public BenchResult run(String command) throws Exception {
        Path data = Files.createTempFile("dml-p7-", ".csv");
        SyntheticFraud.generate(40_000, 7).write().csv(data.toFile());
        List<Double> on = new ArrayList<>();
        List<Double> off = new ArrayList<>();
        List<Long> latencies = new ArrayList<>();
        List<Integer> updates = new ArrayList<>();
        List<Double> cpuOn = new ArrayList<>();
        List<Double> cpuOff = new ArrayList<>();
        List<Double> frameCpu = new ArrayList<>();
        long[] frameBytes = new long[1];
        DmlBackend backend = ServiceLoader.load(DmlBackend.Factory.class).findFirst()
                .orElseThrow().open(null);
        try {
            run(backend, data, false, frameBytes); // warm-up: cluster, JIT, page cache
            for (int pair = 0; pair < PAIRS; pair++) {
                boolean plotsFirst = pair % 2 == 0;
                for (boolean plots : new boolean[] {plotsFirst, !plotsFirst}) {
                    Run r = run(backend, data, plots, frameBytes);
                    (plots ? on : off).add(r.examplesPerSecond);
                    (plots ? cpuOn : cpuOff).add(r.kernelCpuSeconds);
                    if (plots) {
                        Arrays.stream(r.latencies).forEach(latencies::add);
                        updates.add(r.updates);
                        frameCpu.add(r.drawCpuMillis / Math.max(1, r.updates + 1));
                    }
                    System.out.printf("P7 %s: %.0f examples/s, %d updates, kernel CPU %.2f s%n",
                            plots ? "plots on " : "plots off", r.examplesPerSecond, r.updates,
                            r.kernelCpuSeconds);
                }
            }
        } finally {
            backend.close();
            Files.deleteIfExists(data);
        }
        double[] lat = latencies.stream().mapToDouble(Long::doubleValue).sorted().toArray();
        double ratio = median(on) / median(off);
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("p50_ms", percentile(lat, 0.50));
        latency.put("p95_ms", percentile(lat, 0.95));
        latency.put("max_ms", lat.length == 0 ? Double.NaN : lat[lat.length - 1]);
        latency.put("frames", lat.length);
        latency.put("goal_p95_ms", 1000);
        return new BenchResult("P7", 0.98, command).setRatio(ratio)
                .put("what", "throughput with live plots / without (same job, alternated);"
                        + " latency from a worker's loss report to its update leaving")
                .put("job", "%dml train fraud " + JOB + " (40,000 rows)")
                .put("examples_per_s_plots_on", on)
                .put("examples_per_s_plots_off", off)
                .put("latency", latency)
                .put("updates_per_job", updates)
                .put("draw_cpu_ms_per_frame", frameCpu)
                .put("kernel_cpu_seconds_plots_on", cpuOn)
                .put("kernel_cpu_seconds_plots_off", cpuOff)
                .put("mean_frame_message_bytes", lat.length == 0 ? 0
                        : frameBytes[0] / Math.max(1, updates.stream().mapToInt(i -> i).sum()))
                .put("frame_interval_ms", 250)
                .put("machine", Machine.describe());
    }

    private record Run(double examplesPerSecond, long[] latencies, int updates,
            double kernelCpuSeconds, double drawCpuMillis) {}

    /** CPU time of this JVM, the one that plays the kernel: the plots' cost shows here. */
    private static double processCpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    }

    private static Run run(DmlBackend backend, Path data, boolean plots, long[] frameBytes)
            throws InterruptedException {
        double cpu0 = processCpuSeconds();
        List<String> words = new ArrayList<>(List.of(data.toString()));
        words.addAll(List.of(JOB.split(" ")));
        PreparedJob prepared = backend.prepare(TrainRequest.parse(words, null));
        LiveDashboard dashboard = new LiveDashboard(prepared.name(), prepared.epochs(),
                prepared.totalSteps());
        LiveCell cell = plots ? new LiveCell(dashboard, new JsonSink(frameBytes),
                Duration.ofMillis(250)) : null;
        RunningJob job = prepared.start(dashboard);
        while (!job.awaitEnd(Duration.ofSeconds(1))) {
            // training
        }
        if (cell != null) {
            cell.close();
        }
        TrainResult result = (TrainResult) job.outcome().result();
        double examples = 0;
        double seconds = 0;
        for (EpochMetrics e : result.epochs()) {
            examples += e.examplesPerSecond() * e.seconds();
            seconds += e.seconds();
        }
        return new Run(examples / seconds, cell == null ? new long[0] : cell.latenciesMillis(),
                cell == null ? 0 : cell.updates(), processCpuSeconds() - cpu0,
                cell == null ? 0 : cell.drawCpuMillis());
    }

    /** Encodes each frame as the display message's content, as the kernel does before sending. */
    private record JsonSink(long[] bytes) implements DisplaySink {
        private static final Gson GSON = new Gson();

        @Override
        public void display(String displayId, String svg, String text) {
            encode(displayId, svg, text);
        }

        @Override
        public void update(String displayId, String svg, String text) {
            encode(displayId, svg, text);
        }

        private void encode(String displayId, String svg, String text) {
            String json = GSON.toJson(Map.of("data", Map.of("image/svg+xml", svg,
                    "text/plain", text), "metadata", Map.of(),
                    "transient", Map.of("display_id", displayId)));
            synchronized (bytes) {
                bytes[0] += json.length();
            }
        }
    }

    private static double median(List<Double> values) {
        return TrialTimes.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
