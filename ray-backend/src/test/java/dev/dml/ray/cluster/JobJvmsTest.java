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
        String out = java(trim, "-XX:+PrintFlagsFinal", "-version");
        assertTrue(out.matches("(?s).*TrimNativeHeapInterval\\s+=\\s+30000\\s.*"), out);
    }

    @Test
    void theDriverRunsTheSerialCollectorInASmallHeapUnlessTheUserPicksACollector()
            throws Exception {
        String flags = javaFlags(JobJvms.driverHeap(List.of("-Xmx128m")), "-Xmx128m");
        assertTrue(flags.matches("(?s).*UseSerialGC\\s+=\\s+true\\s.*"), flags);
        assertTrue(flags.matches("(?s).*InitialHeapSize\\s+=\\s+33554432\\s.*"), flags);
        assertTrue(flags.matches("(?s).*AlwaysPreTouch\\s+=\\s+true\\s.*"), flags);
        // the user's collector replaces ours: two would stop the JVM starting
        List<String> g1 = JobJvms.driverHeap(List.of("-XX:+UseG1GC"));
        assertEquals(List.of(JobJvms.DRIVER_INITIAL_HEAP, "-XX:+AlwaysPreTouch"), g1);
        // a cap below 32 MiB drops our initial heap, which would stop the JVM starting
        List<String> small = JobJvms.driverHeap(List.of("-Xmx16m"));
        assertEquals(List.of("-XX:+UseSerialGC", "-XX:+AlwaysPreTouch"), small);
        javaFlags(small, "-Xmx16m");
        flags = javaFlags(g1, "-XX:+UseG1GC");
        assertTrue(flags.matches("(?s).*UseG1GC\\s+=\\s+true\\s.*"), flags);
    }

    /** Starts this java with the options, user's last, and returns its final flags. */
    private static String javaFlags(List<String> ours, String user) throws Exception {
        return java(ours, user, "-XX:+PrintFlagsFinal", "-version");
    }

    /** Runs this java with our options, then the arguments; checks it exits 0; its output. */
    private static String java(List<String> ours, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ours);
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void workersGetTheVectorModuleAndAJavaStartsWithIt() throws Exception {
        List<String> vector = JobJvms.vectorModule();
        assertEquals(List.of("--add-modules=jdk.incubator.vector"), vector);
        String out = java(vector, "--list-modules");
        assertTrue(out.contains("jdk.incubator.vector"), out);
    }

    @Test
    void driversAndWorkersGetTwoMallocArenasUnlessTheKernelSetsItsOwn() {
        String own = System.getenv("MALLOC_ARENA_MAX");
        assertEquals(own != null ? own : "2", JobJvms.workerEnv().get("MALLOC_ARENA_MAX"));
        assertEquals("2", JobJvms.WORKER_ENV.get("MALLOC_ARENA_MAX"));
    }
}
