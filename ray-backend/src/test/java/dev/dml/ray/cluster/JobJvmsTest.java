package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JobJvmsTest {

    @Test
    void jobJvmsTrimTheirNativeHeapWhereTheJavaKnowsHow() throws Exception {
        List<String> trim = JobJvms.trimNativeHeap();
        if (Runtime.version().feature() == 17 && Runtime.version().update() < 9) {
            assertEquals(List.of(), trim); // an older 17 would refuse the option and not start
            return;
        }
        assertEquals(List.of("-XX:TrimNativeHeapInterval=30000"), trim);
        // the java a driver runs starts with it, and it takes effect
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(trim);
        cmd.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.matches("(?s).*TrimNativeHeapInterval\\s+=\\s+30000\\s.*"), out);
    }

    @Test
    void workersGetTheVectorModuleAndAJavaStartsWithIt() throws Exception {
        List<String> vector = JobJvms.vectorModule();
        assertEquals(List.of("--add-modules=jdk.incubator.vector"), vector);
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(vector);
        cmd.addAll(List.of("--list-modules"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("jdk.incubator.vector"), out);
    }

    @Test
    void driversAndWorkersGetTwoMallocArenasUnlessTheKernelSetsItsOwn() {
        String own = System.getenv("MALLOC_ARENA_MAX");
        assertEquals(own != null ? own : "2", JobJvms.workerEnv().get("MALLOC_ARENA_MAX"));
        assertEquals("2", JobJvms.WORKER_ENV.get("MALLOC_ARENA_MAX"));
    }
}
