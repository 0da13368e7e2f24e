package dev.dml.bench;

import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.SyntheticFraud;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * P12: seconds from {@code %dml train ... --read-on-workers} to the first training step, on a
 * data set larger than the kernel's heap (smaller is better; goal {@value #GOAL} s).
 *
 * <p>This JVM writes {@value #PARTS} Parquet files (row groups of {@link
 * WorkerReadFiles#ROWS_PER_GROUP} rows) of synthetic fraud rows ({@value #ROWS_PER_PART}
 * rows each, 31 float32 features and an int label) with pyarrow. A child JVM, the kernel, runs
 * with {@code -Xmx}{@value #KERNEL_HEAP_MB}{@code m}: it opens a local cluster (2 CPUs), builds
 * the spec from the folder (the streaming scan), and starts a 2-worker job ({@link
 * FirstStepKernel}). The table as Tablesaw doubles would need several times that heap.
 * Several rounds; the median is the ratio.
 */
final class TimeToFirstStep implements Benchmark {

    static final double GOAL = 60;
    static final int PARTS = 12;
    static final int ROWS_PER_PART = 250_000;
    static final int KERNEL_HEAP_MB = 256;
    static final int ROUNDS = 3;

    @Override
    public BenchResult run(String command) throws Exception {
        Path dir = Files.createTempDirectory("dml-p12");
        Path data = Files.createDirectories(dir.resolve("fraud"));
        long fileBytes = 0;
        for (int i = 0; i < PARTS; i++) {
            byte[] ipc = ArrowShards.encode(SyntheticFraud.generate(ROWS_PER_PART, 100 + i),
                    SyntheticFraud.selection());
            Path stream = Files.write(dir.resolve("part.arrows"), ipc);
            Path out = data.resolve(String.format("part-%02d.parquet", i));
            WorkerReadFiles.toFiles(stream, SyntheticFraud.LABEL, out, null);
            fileBytes += Files.size(out);
        }
        long rows = (long) PARTS * ROWS_PER_PART;
        long tableBytes = rows * (SyntheticFraud.selection().featureCount() + 1) * 8L;
        System.out.printf("P12: %,d rows in %d Parquet files, %.0f MB on disk; as Tablesaw"
                + " doubles about %.0f MB; kernel heap %d MB%n", rows, PARTS, fileBytes / 1e6,
                tableBytes / 1e6, KERNEL_HEAP_MB);
        List<Map<String, Double>> runs = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            Map<String, Double> run = kernel(data);
            System.out.println("  round " + r + ": " + run);
            runs.add(run);
        }
        double[] first = runs.stream().mapToDouble(m -> m.get("first_step_s")).toArray();
        double median = TrialTimes.median(first);
        Map<String, Object> phases = new LinkedHashMap<>();
        for (String k : runs.get(0).keySet()) {
            phases.put(k, TrialTimes.round(TrialTimes.median(
                    runs.stream().mapToDouble(m -> m.get(k)).toArray()), 3));
        }
        WorkerReadFiles.deleteTree(dir);
        return new BenchResult("P12", GOAL, command).setRatio(TrialTimes.round(median, 3))
                .optSmallerIsBetter()
                .put("ratio_is", "median seconds from the kernel's TrainSpec.builder().setFiles"
                        + " to the first StepMetrics event, cluster already open")
                .put("rows", rows)
                .put("files", PARTS)
                .put("parquet_bytes", fileBytes)
                .put("table_bytes_as_tablesaw_doubles", tableBytes)
                .put("kernel_max_heap_mb", KERNEL_HEAP_MB)
                .put("job", "mlp [64, 32], 2 workers x 1 CPU, batch 512, --read-on-workers,"
                        + " default 2048 MB node cache, a fresh cache folder each round")
                .put("rounds", runs)
                .put("median_phases_s", phases)
                .put("phases_are", Map.of(
                        "scan_s", "setFiles + build: footers, then the streaming scan (one row"
                                + " group at a time) for classes, validation and statistics",
                        "workers_up_s", "from the job's submission to JobStarted",
                        "load_and_first_step_s", "from JobStarted to the first step: each"
                                + " worker reads its row groups (prefetching the next),"
                                + " decodes them, initialises the model, runs a step",
                        "first_step_s", "the sum: setFiles to the first step",
                        "kernel_heap_peak_mb", "the sum of the kernel JVM's heap pools' peak"
                                + " use (each pool peaks at its own time, so the sum may pass"
                                + " -Xmx)"));
    }

    private static Map<String, Double> kernel(Path data) throws Exception {
        Path cache = Files.createTempDirectory("dml-p12-cache");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + KERNEL_HEAP_MB + "m", "-Dai.djl.offline=true",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), FirstStepKernel.class.getName(),
                data.toString(), cache.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Map<String, Double> out = new LinkedHashMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("P12 ")) {
                    String[] kv = line.substring(4).split("=");
                    out.put(kv[0], Double.parseDouble(kv[1]));
                } else {
                    System.out.println("  kernel: " + line);
                }
            }
        }
        if (p.waitFor() != 0 || !out.containsKey("first_step_s")) {
            throw new IllegalStateException("P12's kernel JVM failed (exit " + p.exitValue()
                    + "); its output is above.");
        }
        return out;
    }
}
