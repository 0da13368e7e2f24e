package dev.dml.bench;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.DmlEnv;
import dev.dml.DmlException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * P3's PyTorch side: runs {@code bench/torch/p3_ddp.py} for a {@link DdpJob}, as a user would
 * without dml (DistributedDataParallel over gloo for 2 workers, one plain process for 1).
 *
 * <p>The Python is {@code $DML_BENCH_PYTHON}, else {@code bench/.venv/bin/python} (what {@code
 * bash bench/torch/setup} makes), else {@code python3}; it needs {@code torch} and {@code numpy}.
 * The benchmark never installs them: PyTorch for Python is no dependency of dml.
 *
 * @param python the Python that runs the script
 * @param version its PyTorch version, e.g. {@code 2.13.0+cpu}
 * @param log where the script's output goes
 */
record DdpTorchSide(String python, String version, Path log) {

    static final Path SCRIPT = Path.of("bench/torch/p3_ddp.py");
    private static final Path VENV_PYTHON = Path.of("bench/.venv/bin/python");

    /** Finds a Python with PyTorch, or fails saying how to get one. */
    static DdpTorchSide find() throws IOException, InterruptedException {
        String python = DmlEnv.system().value(DmlEnv.BENCH_PYTHON).orElse(
                Files.isExecutable(VENV_PYTHON) ? VENV_PYTHON.toString() : "python3");
        if (!Files.isRegularFile(SCRIPT)) {
            throw new DmlException("P3 cannot find " + SCRIPT + ".",
                    "Run it from the repository root: bash bench/run P3.");
        }
        Path log = Files.createTempFile("dml-p3-torch-", ".log");
        List<String> probe = List.of(python, "-c",
                "import numpy, torch; print(torch.__version__)");
        if (exec(probe, log, 120) != 0) {
            throw new DmlException("P3 needs PyTorch for Python, and " + python + " has no torch"
                    + " or numpy: " + tail(log),
                    "Run 'bash bench/torch/setup' (a venv in bench/.venv with pip install torch"
                            + " numpy), or set DML_BENCH_PYTHON to a python that has them.");
        }
        String v = Files.readString(log).strip();
        return new DdpTorchSide(python, v.substring(v.lastIndexOf('\n') + 1), log);
    }

    /** Runs the setting once; a trajectory run also scores the test split. */
    DdpRun run(DdpJob s, boolean trajectory) throws IOException, InterruptedException {
        Path out = Files.createTempFile("dml-p3-torch-", ".json");
        try {
            List<String> cmd = new ArrayList<>(List.of(python, SCRIPT.toString(),
                    "--model", s.cnn() ? "cnn" : "mlp",
                    "--workers", String.valueOf(s.workers()),
                    "--batch", String.valueOf(DdpJob.BATCH),
                    "--steps-per-epoch", String.valueOf(DdpJob.STEPS_PER_EPOCH),
                    "--steps", String.valueOf(s.steps()),
                    "--lr", String.valueOf(MlpJobs.LEARNING_RATE),
                    "--seed", String.valueOf(MlpJobs.SEED),
                    "--eval-every", String.valueOf(trajectory ? DdpJob.EVAL_EVERY : 0),
                    "--warm-steps", String.valueOf(DdpJob.WARM_STEPS),
                    "--out", out.toString(),
                    "--hidden"));
            Arrays.stream(MlpJobs.HIDDEN).forEach(h -> cmd.add(String.valueOf(h)));
            double launch = System.currentTimeMillis() / 1e3;
            if (exec(cmd, log, 600) != 0) {
                throw new DmlException("The PyTorch side of P3 failed (" + s.name() + "): "
                        + tail(log), "Run it by hand to see why: " + String.join(" ", cmd));
            }
            JsonObject r = JsonParser.parseString(Files.readString(out)).getAsJsonObject();
            JsonArray ends = r.getAsJsonArray("step_ends");
            double[] at = new double[ends.size() + 1];
            at[0] = Double.NaN;
            for (int i = 0; i < ends.size(); i++) {
                at[i + 1] = ends.get(i).getAsDouble() - launch;
            }
            JsonArray losses = r.getAsJsonArray("losses");
            Map<Integer, Double> acc = new TreeMap<>();
            r.getAsJsonObject("accuracy").entrySet().forEach(
                    e -> acc.put(Integer.parseInt(e.getKey()), e.getValue().getAsDouble()));
            // rank 0's step phases, named as dml's (MlpJobs.phaseName)
            Map<String, Double> parts = new LinkedHashMap<>();
            r.getAsJsonObject("phase_ms").entrySet().forEach(
                    e -> parts.put(e.getKey() + "_ms", e.getValue().getAsDouble()));
            return new DdpRun(r.get("start").getAsDouble() - launch, at,
                    losses.get(losses.size() - 1).getAsFloat(), acc, parts);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** One intra-op thread per process, as dml's workers have. */
    private static int exec(List<String> cmd, Path log, int timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().put("MKL_NUM_THREADS", "1");
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new DmlException("'" + String.join(" ", cmd) + "' ran over " + timeoutSeconds
                    + " s.", "See " + log + ".");
        }
        return p.exitValue();
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }
}
