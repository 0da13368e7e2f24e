package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The local Ray installation: the {@code ray} command, the Python that has the {@code ray}
 * package, its version, its Java runtime ({@code ray/jars/ray_dist.jar}) and the {@code java}
 * that drivers and workers run on.
 *
 * <p>The version comes from the package metadata of the Python that runs the {@code ray}
 * command, which is what {@code ray --version} prints (without its 5 s import), and the jar lies
 * in that same package, so one check covers both. {@link #detect} finds and checks one.
 *
 * @param rayCommand the {@code ray} command's path
 * @param python the Python interpreter that has the {@code ray} package: a command or a path
 * @param version the installed Ray version, such as {@code 2.58.0}
 * @param rayDistJar Ray's Java runtime, {@code ray_dist.jar}, which drivers put on their class
 *     path
 * @param java the {@code bin/java} of this JVM, which drivers and the embedded head's workers
 *     use
 */
public record RayInstallation(
        Path rayCommand, String python, String version, Path rayDistJar, Path java) {

    private static final String PROBE =
            "import importlib.metadata as m, importlib.util as u, os\n"
                    + "print(m.version('ray'))\n"
                    + "print(os.path.dirname(u.find_spec('ray').origin))\n";

    /**
     * Finds Ray and checks its version against {@link ClusterSpec#expectedVersion()}.
     *
     * @param spec where to look and which version to expect
     * @return the installation
     * @throws DmlException when Ray is missing, has another version, or lacks its Java runtime
     */
    public static RayInstallation detect(ClusterSpec spec) {
        String expected = spec.expectedVersion();
        String install = "Run `pip install ray==" + expected + "`, then try again.";
        String rayName = spec.rayCommand().orElse("ray");
        Path ray = Processes.findExecutable(rayName);
        if (ray == null) {
            throw new DmlException(
                    "Ray is not installed: no `" + rayName + "` command"
                            + (rayName.indexOf('/') >= 0 ? "." : " on PATH."),
                    install);
        }
        String python = spec.python().orElseGet(() -> interpreterOf(ray));
        List<String> lines = probe(python, install);
        String version = lines.get(0).trim();
        if (!version.equals(expected)) {
            throw new DmlException(
                    "Ray " + version + " is installed (for " + python + "), but dml needs Ray "
                            + expected + ": the Java runtime must match the cluster's.",
                    install);
        }
        Path jar = Path.of(lines.get(1).trim(), "jars", "ray_dist.jar");
        if (!Files.isRegularFile(jar)) {
            throw new DmlException(
                    "Ray " + version + " has no Java runtime: " + jar + " is missing.",
                    "Run `pip install --force-reinstall ray==" + expected
                            + "` (the Linux wheel ships ray/jars/ray_dist.jar).");
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new DmlException(
                    "No java executable at " + java + " (from java.home).",
                    "Run the kernel on a full JDK or JRE 17+ that has bin/java.");
        }
        return new RayInstallation(ray, python, version, jar, java);
    }

    private static List<String> probe(String python, String install) {
        Processes.Result r;
        try {
            r = Processes.run(List.of(python, "-c", PROBE), Duration.ofSeconds(60));
        } catch (IOException e) {
            throw new DmlException(
                    "Cannot run " + python + " to find Ray: " + e.getMessage() + ".",
                    "Install Python 3, or name the interpreter with ClusterSpec.optPython.", e);
        }
        List<String> lines = r.output().lines().filter(l -> !l.isBlank()).toList();
        if (r.exitCode() != 0 || lines.size() < 2) {
            String last = lines.isEmpty() ? "no output" : lines.get(lines.size() - 1);
            throw new DmlException(
                    "Ray is not installed for " + python + " (" + last + ").", install);
        }
        return lines.subList(lines.size() - 2, lines.size());
    }

    /**
     * The interpreter of a {@code ray} script: its {@code #!} line when that names Python (a
     * pip or venv install), else {@code python3} (a pyenv shim or a wrapper script).
     */
    static String interpreterOf(Path script) {
        try (BufferedReader r = Files.newBufferedReader(script, StandardCharsets.ISO_8859_1)) {
            String first = r.readLine();
            if (first != null && first.startsWith("#!") && first.contains("python")) {
                String[] parts = first.substring(2).trim().split("\\s+");
                String last = parts[parts.length - 1];
                return last.startsWith("/") ? last : Path.of(last).getFileName().toString();
            }
        } catch (IOException e) {
            // not readable as text: fall back
        }
        return "python3";
    }

    @Override
    public String toString() {
        return "Ray " + version + " (" + rayCommand + ", " + rayDistJar + ")";
    }
}
