package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Model;
import ai.djl.pytorch.engine.PtEngine;
import ai.djl.pytorch.jni.JniUtils;
import com.google.gson.Gson;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;

/**
 * Loads a saved model the way programs without dml do, each in its own process, and reads back
 * their predictions: a plain DJL program ({@code export/PlainDjlLoad.java}, only DJL and Gson on
 * its class path) and PyTorch ({@code export/torch_load.py}).
 */
public final class ExternalLoaders {

    private ExternalLoaders() {}

    /** Predictions of the plain DJL program, one array per CSV row. */
    public static float[][] plainDjl(Path modelDir, Path csv, Path work) throws Exception {
        List<String> jars = new ArrayList<>();
        for (Class<?> c : List.of(Model.class, PtEngine.class, JniUtils.class, Gson.class,
                com.sun.jna.Native.class, org.slf4j.LoggerFactory.class)) {
            jars.add(jarOf(c.getProtectionDomain().getCodeSource().getLocation()));
        }
        // the libtorch jar holds no classes: find it by the resource DJL looks up
        String props = "native/lib/pytorch.properties";
        URL url = ExternalLoaders.class.getClassLoader().getResource(props);
        String spec = url.toString(); // jar:file:/...!/native/lib/pytorch.properties
        jars.add(jarOf(new URL(spec.substring(4, spec.indexOf("!/")))));
        for (String jar : jars) {
            String name = Path.of(jar).getFileName().toString();
            assertTrue(name.endsWith(".jar") && !name.startsWith("dml-"),
                    "dml leaked onto the plain class path: " + jar);
        }
        Path source = work.resolve("src/PlainDjlLoad.java");
        Files.createDirectories(source.getParent());
        try (InputStream in = ExternalLoaders.class.getResourceAsStream(
                "/export/PlainDjlLoad.java")) {
            Files.copy(in, source);
        }
        Path classes = work.resolve("classes");
        String cp = String.join(File.pathSeparator, jars);
        assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "-cp", cp, "-d", classes.toString(), source.toString()), "javac failed");
        return read(run(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Dai.djl.offline=true",
                "-cp", cp + File.pathSeparator + classes, "PlainDjlLoad",
                modelDir.toString(), csv.toString()), work.resolve("djl.log")));
    }

    /**
     * Predictions of PyTorch, or the test is skipped (with the reason printed) when no Python
     * here has torch and safetensors: {@code $DML_BENCH_PYTHON}, {@code bench/.venv} (made by
     * {@code bash bench/torch/setup}), else {@code python3}.
     */
    public static float[][] torch(Path modelDir, Path csv, Path work) throws Exception {
        String python = torchPython();
        if (python == null) {
            String reason = "no Python with torch and safetensors: set DML_BENCH_PYTHON or run"
                    + " bash bench/torch/setup";
            System.out.println("SKIPPED the PyTorch check: " + reason);
            Assumptions.abort(reason);
        }
        Path script = work.resolve("torch_load.py");
        try (InputStream in = ExternalLoaders.class.getResourceAsStream("/export/torch_load.py")) {
            Files.copy(in, script);
        }
        return read(run(List.of(python, script.toString(), modelDir.toString(), csv.toString()),
                work.resolve("torch.log")));
    }

    /** Every value within {@code tolerance}; and the rows differ, so the model is not trivial. */
    public static void assertSame(float[][] expected, float[][] actual, double tolerance) {
        assertEquals(expected.length, actual.length, "rows");
        double worst = 0;
        boolean varies = false;
        for (int r = 0; r < expected.length; r++) {
            assertEquals(expected[r].length, actual[r].length, "outputs of row " + r);
            for (int j = 0; j < expected[r].length; j++) {
                worst = Math.max(worst, Math.abs(expected[r][j] - actual[r][j]));
                varies |= Math.abs(expected[r][j] - expected[0][j]) > 1e-3;
            }
        }
        assertTrue(worst <= tolerance, "predictions differ by up to " + worst);
        assertTrue(varies, "every row has the same prediction: a trivial model proves nothing");
        System.out.printf("%d rows agree; largest difference %.2e%n", expected.length, worst);
    }

    private static String torchPython() throws IOException, InterruptedException {
        List<String> candidates = new ArrayList<>();
        String env = System.getenv("DML_BENCH_PYTHON");
        if (env != null && !env.isBlank()) {
            candidates.add(env);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path venv = dir.resolve("bench/.venv/bin/python");
            if (Files.isExecutable(venv)) {
                candidates.add(venv.toString());
                break;
            }
        }
        candidates.add("python3");
        for (String python : candidates) {
            try {
                Process p = new ProcessBuilder(python, "-c", "import torch, safetensors")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return python;
                }
                p.destroyForcibly();
            } catch (IOException e) {
                // not installed: try the next
            }
        }
        return null;
    }

    private static String run(List<String> command, Path log) throws Exception {
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "timed out: " + command);
        assertEquals(0, p.exitValue(), command.get(0) + " failed:\n" + Files.readString(log));
        return out;
    }

    private static float[][] read(String lines) {
        return lines.lines().filter(l -> !l.isBlank()).map(l -> {
            String[] cells = l.split(",");
            float[] row = new float[cells.length];
            for (int i = 0; i < cells.length; i++) {
                row[i] = Float.parseFloat(cells[i]);
            }
            return row;
        }).toArray(float[][]::new);
    }

    private static String jarOf(URL location) throws URISyntaxException {
        return Path.of(location.toURI()).toString();
    }
}
