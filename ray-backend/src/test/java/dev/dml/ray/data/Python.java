package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the test scripts in src/test/python with {@code python3} and pyarrow. */
final class Python {

    private static final String TEST_REQUIREMENTS =
            "Install the test requirements: bin/install --for-tests";

    private Python() {}

    static Path script(String name) {
        return Path.of(System.getProperty("basedir", "."), "src", "test", "python", name);
    }

    /** Fails the test, saying how to fix it, when python3 or pyarrow is missing. */
    static void requirePyarrow() {
        require("pyarrow", "the cross-language tests need", "Install it for python3: pip install"
                + " pyarrow");
    }

    /** Fails the test, saying how to fix it, when python3 cannot import boto3. */
    static void requireBoto3() {
        requirePyarrow();
        require("boto3", "the S3 tests upload their files with", TEST_REQUIREMENTS);
    }

    /** Fails the test, saying how to fix it, when python3 cannot import pandas. */
    static void requirePandas() {
        requirePyarrow();
        require("pandas", "the pandas file-format tests need", TEST_REQUIREMENTS);
    }

    /** Fails the test, saying how to fix it, when python3 cannot import scikit-learn. */
    static void requireSklearn() {
        requirePandas();
        require("sklearn", "the small-table tests need", TEST_REQUIREMENTS);
    }

    /** Fails the test with {@code why} and {@code fix} when python3 cannot import a module. */
    private static void require(String module, String why, String fix) {
        if (run(List.of("python3", "-c", "import " + module), true) == null) {
            fail("python3 cannot import " + module + ", which " + why + ".\n" + fix);
        }
    }

    /** Runs a script and returns its key=value output lines. */
    static Map<String, String> runScript(String name, String... args) {
        List<String> cmd = new ArrayList<>(List.of("python3", script(name).toString()));
        cmd.addAll(List.of(args));
        String out = run(cmd, false);
        Map<String, String> kv = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                kv.put(line.substring(0, eq), line.substring(eq + 1).trim());
            }
        }
        return kv;
    }

    private static String run(List<String> cmd, boolean quiet) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("python3 did not finish in 60 s: " + cmd);
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                if (quiet) {
                    return null;
                }
                fail("python3 failed (exit " + p.exitValue() + "): " + cmd + "\n" + out);
            }
            return out;
        } catch (IOException e) {
            if (quiet) {
                return null;
            }
            fail("Cannot start python3: " + e.getMessage()
                    + "\nInstall Python 3 and pip install pyarrow");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
            return null;
        }
    }
}
