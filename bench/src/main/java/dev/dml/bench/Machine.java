package dev.dml.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a result was measured on: cores, CPU model, memory, JVM and OS; no host names or paths. */
final class Machine {

    private Machine() {}

    /** Returns the description as an ordered map for Gson. */
    static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        m.put("jvm", System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version"));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        String threads = System.getProperty("ai.djl.pytorch.num_threads");
        if (threads != null) {
            m.put("pytorch_threads", Integer.parseInt(threads));
        }
        return m;
    }

    private static String cpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or not readable: the model stays unknown.
        }
        return "unknown";
    }
}
