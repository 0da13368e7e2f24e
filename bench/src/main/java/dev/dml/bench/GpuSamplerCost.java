package dev.dml.bench;

import com.google.gson.Gson;
import com.google.gson.reflect.TypeToken;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * P13: the time of a worker's training steps with its GPU sampler running ({@code
 * dev.dml.ray.train.device.GpuSampler}, an {@code nvidia-smi} query process every second)
 * divided by the time without it (smaller is better; goal at most {@value #GOAL}).
 *
 * <p>The steps run in a child JVM ({@link SamplerSteps}) with one PyTorch thread, as a worker's do.
 * Where {@code nvidia-smi} is on the {@code PATH}, the child runs the real one. Where it is not
 * (a machine without a GPU), this JVM writes a stand-in named {@code nvidia-smi} to a temporary
 * folder put first on the child's {@code PATH}: a shell script that prints {@value #SAMPLE}
 * (written from the documented query format). What is measured there is the step's CPU-side
 * cost of spawning, waiting for and parsing the query, not NVML's own work. The result says
 * which ran. A second run pins the step JVM to one core ({@link #ONE_CORE}), where the query
 * cannot run beside the step: the worst case, reported apart.
 */
final class GpuSamplerCost implements Benchmark {

    static final double GOAL = 1.02;
    static final String SAMPLE = "nvidia-smi/one-h100.csv";
    static final List<String> ONE_CORE = List.of("taskset", "-c", "0");

    @Override
    public BenchResult run(String command) throws Exception {
        Path real = onPath("nvidia-smi");
        Path standIn = real == null ? standIn() : null;
        Map<String, Object> smi = new LinkedHashMap<>();
        if (real != null) {
            smi.put("used", "the real nvidia-smi, first on PATH");
            smi.put("gpus", lines(real.toString(), "--query-gpu=name,driver_version",
                    "--format=csv,noheader"));
        } else {
            smi.put("used", "a stand-in: no nvidia-smi on this machine's PATH, so a shell script"
                    + " named nvidia-smi (exec cat of a file) printed ray-backend/src/test/"
                    + "resources/" + SAMPLE + ", one H100's line written from the documented"
                    + " query format; measured is the CPU-side cost of spawning, waiting for"
                    + " and parsing the query each period, not NVML's work (on a GPU node the"
                    + " bench runs the real nvidia-smi)");
        }
        double load0 = MlpJobs.loadAverage();
        Map<String, Object> m;
        Map<String, Object> pinned = new LinkedHashMap<>();
        try {
            m = child(standIn, List.of());
            if (onPath("taskset") != null) {
                pinned.put("is", "the same run with the step JVM pinned to one core ("
                        + String.join(" ", ONE_CORE) + "): the steps, the sampler thread and"
                        + " the query process share it, as on a node whose every core trains");
                pinned.putAll(child(standIn, ONE_CORE));
            } else {
                pinned.put("is", "not run: taskset is not on PATH");
            }
        } finally {
            if (standIn != null) {
                WorkerReadFiles.deleteTree(standIn);
            }
        }
        double ratio = (Double) m.remove("ratio");
        double stress = (Double) m.remove("stress_ratio");
        double queryMs = number(m, "query", "wall_ms", "median");
        System.out.printf("P13 on one core: ratio %.4f (stress %.4f)%n", pinned.get("ratio"),
                pinned.get("stress_ratio"));
        Map<String, Object> duty = new LinkedHashMap<>();
        duty.put("is", "median query wall time / (period + that time): the share of the time a"
                + " query process is running (the sampler waits a period after each query ends)");
        duty.put("worker_period", TrialTimes.round(queryMs / (1000 + queryMs), 5));
        duty.put("stress_period", TrialTimes.round(queryMs / (SamplerSteps.STRESS.toMillis()
                + queryMs), 5));
        System.out.printf("P13: ratio %.4f (stress %.4f); one query %.2f ms%n", ratio, stress,
                queryMs);
        BenchResult r = new BenchResult("P13", GOAL, command).optSmallerIsBetter()
                .setRatio(ratio)
                .put("ratio_is", "median seconds of " + SamplerSteps.STEPS + " training steps with"
                        + " the GPU sampler running at a worker's period (1 s) / median seconds"
                        + " of the same steps with no sampler, interleaved in one JVM")
                .put("stress_ratio", TrialTimes.round(stress, 4))
                .put("stress_ratio_is", "the same with the sampler at "
                        + SamplerSteps.STRESS.toMillis() + " ms, 20x a worker's rate")
                .put("nvidia_smi", smi)
                .put("duty_cycle", duty);
        m.forEach(r::put);
        return r.put("one_core", pinned)
                .put("setup", setup())
                .put("load_average_1min", List.of(load0, MlpJobs.loadAverage()));
    }

    private static Map<String, Object> setup() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("step", "ModelStage.trainBatch (forward, loss, backward) then ModelStage.step"
                + " (Adam lr 1e-3), a data-parallel worker's compute path on the CPU");
        s.put("model", "MLP " + SamplerSteps.INPUTS + "-1024-1024-" + SamplerSteps.CLASSES
                + " (ReLU), softmax cross-entropy");
        s.put("batch", SamplerSteps.BATCH);
        s.put("data", SamplerSteps.BATCHES + " batches of Gaussian features and random labels,"
                + " cycled (the step time does not depend on the values)");
        s.put("steps_per_trial", SamplerSteps.STEPS);
        s.put("jvm", "a child JVM: -Dai.djl.pytorch.num_threads=1 -XX:G1HeapRegionSize=32m,"
                + " as a worker's");
        s.put("method", SamplerSteps.ROUNDS.describe() + " of the three trials (no sampler, 1 s, "
                + SamplerSteps.STRESS.toMillis() + " ms), SideBySide: each round starts at the next"
                + " trial, full GC before each; a trial starts its sampler just before its first"
                + " step and closes it after its last");
        return s;
    }

    /** Runs {@link SamplerSteps}, after {@code prefix} (e.g. taskset), and returns its numbers. */
    private static Map<String, Object> child(Path standIn, List<String> prefix)
            throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1",
                "-XX:G1HeapRegionSize=32m", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), SamplerSteps.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (standIn != null) {
            // a JVM looks commands up on its own PATH, so the child gets the stand-in's
            pb.environment().put("PATH", standIn + File.pathSeparator + System.getenv("PATH"));
        }
        Process p = pb.start();
        String json = null;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("P13 ")) {
                    json = line.substring(4);
                } else {
                    System.out.println("  steps: " + line);
                }
            }
        }
        if (p.waitFor() != 0 || json == null) {
            throw new IllegalStateException("P13's step JVM failed (exit " + p.exitValue()
                    + "); its output is above.");
        }
        Map<String, Object> m = new Gson().fromJson(json,
                new TypeToken<LinkedHashMap<String, Object>>() { }.getType());
        m.computeIfPresent("parameters", (k, v) -> ((Double) v).longValue()); // JSON numbers
        return m;
    }

    /** Writes the stand-in {@code nvidia-smi} and its output to a new temporary folder. */
    private static Path standIn() throws IOException {
        Path dir = Files.createTempDirectory("dml-p13");
        Path sample = dir.resolve("one-h100.csv");
        try (InputStream in = GpuSamplerCost.class.getResourceAsStream("/" + SAMPLE)) {
            if (in == null) {
                throw new IllegalStateException(SAMPLE + " is not on the class path; build with"
                        + " bash bench/run, which packages ray-backend's test jar.");
            }
            Files.copy(in, sample);
        }
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\n# P13's stand-in: prints a sample query output\n"
                + "exec cat '" + sample + "'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** A command's output lines: the GPUs' names and driver versions, for the record. */
    private static List<String> lines(String... command) throws IOException,
            InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        p.waitFor();
        return new String(out, StandardCharsets.UTF_8).lines().map(String::trim).toList();
    }

    /** The first executable {@code name} on this JVM's PATH, or null. */
    static Path onPath(String name) {
        String path = System.getenv("PATH");
        for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
            Path f = Path.of(d.isEmpty() ? "." : d, name);
            if (Files.isRegularFile(f) && Files.isExecutable(f)) {
                return f;
            }
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static double number(Map<String, Object> m, String... keys) {
        Object o = m;
        for (String k : keys) {
            o = ((Map<String, Object>) o).get(k);
        }
        return (Double) o;
    }
}
