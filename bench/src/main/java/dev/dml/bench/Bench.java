package dev.dml.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Runs one benchmark by id and writes its {@code ID.json}: {@code bash bench/run P6}.
 *
 * <p>System properties: {@code dml.bench.results} is the results folder (default {@code
 * bench/results}, relative to the repository root where {@code bench/run} starts it) and {@code
 * dml.bench.command} is the command recorded in the result (default {@code bash bench/run ID}).
 */
public final class Bench {

    private static final Map<String, Benchmark> BENCHMARKS = new LinkedHashMap<>();

    static {
        BENCHMARKS.put("P1", new OneWorkerThroughput());
        BENCHMARKS.put("P2", new TwoWorkerScaling());
        BENCHMARKS.put("P3", new TorchDdpComparison());
        BENCHMARKS.put("P4", new AllReduceBandwidth());
        BENCHMARKS.put("P5", new CompressionTraffic());
        BENCHMARKS.put("P6", new DataPathBandwidth());
        BENCHMARKS.put("P6S3", new ObjectStoreRead());
        BENCHMARKS.put("P12", new TimeToFirstStep());
        BENCHMARKS.put("P7", new LivePlotCost());
        BENCHMARKS.put("P8", new PipelineEfficiency());
        BENCHMARKS.put("R1", new RecoveryTime());
        BENCHMARKS.put("P10", new CrossNodeCost());
        BENCHMARKS.put("C1", new PlanError());
        BENCHMARKS.put("P11", new PredictThroughput());
        BENCHMARKS.put("A1", new AsyncVersusSync());
        BENCHMARKS.put("P13", new GpuSamplerCost());
        BENCHMARKS.put("P14", new MixedPrecisionSpeedup());
        BENCHMARKS.put("P15", new WorkerStepOverhead());
        BENCHMARKS.put("P16", new SimdOptimizerSpeedup());
        BENCHMARKS.put("T1", new SweepVersusGrid());
        BENCHMARKS.put("M1", new ShardedOptimizerMemory());
    }

    private Bench() {}

    /**
     * Runs the benchmark named by the one argument.
     *
     * @param args the id, e.g. {@code P6}, or {@code --list}
     * @throws Exception if the benchmark fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--list")) {
            // the id stays in results and bench/README.md; the class says what it measures
            BENCHMARKS.forEach((id, b) -> System.out.println(id + "  " + b.getClass()
                    .getSimpleName()));
            return;
        }
        Benchmark b = args.length == 1 ? BENCHMARKS.get(args[0]) : null;
        if (b == null) {
            System.err.println((args.length == 1 ? "Unknown benchmark '" + args[0] + "'."
                    : "Name one benchmark.") + " Known: " + String.join(", ", BENCHMARKS.keySet())
                    + ".");
            System.err.println("Run: bash bench/run ID, e.g. bash bench/run P6");
            System.exit(2);
        }
        String id = args[0];
        String command = System.getProperty("dml.bench.command", "bash bench/run " + id);
        BenchResult r = b.run(command);
        Path dir = Path.of(System.getProperty("dml.bench.results", "bench/results"));
        r.write(dir);
        System.out.printf("%s: ratio %.3f, goal %.2f %s; wrote %s%n", id, r.ratio(), r.goal(),
                r.met() ? "met" : "missed", dir.resolve(id + ".json"));
    }
}
