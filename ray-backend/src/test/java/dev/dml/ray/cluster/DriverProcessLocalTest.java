package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The kernel-to-driver channel with a real child JVM whose Ray runs in LOCAL mode (no cluster):
 * results, errors, timeouts, and the child's death, none of which may harm this JVM.
 */
class DriverProcessLocalTest {

    private static Path logs;
    private static DriverProcess driver;

    static DriverProcess launchLocal(String name) throws IOException {
        return launchLocal(logs, name);
    }

    /** A driver in Ray's LOCAL mode, its log in {@code dir}. */
    static DriverProcess launchLocal(Path dir, String name) throws IOException {
        Path log = Files.createTempFile(dir, name, ".log");
        return DriverLauncher.launch(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                Classpaths.current(),
                Map.of("ray.run-mode", "LOCAL"),
                DriverSpec.builder().addJvmOption("-Xmx256m")
                        .optCallTimeout(Duration.ofSeconds(60)).build(),
                log, () -> { });
    }

    @BeforeAll
    static void start() throws IOException {
        logs = Files.createTempDirectory("dml-driver-test-");
        driver = launchLocal("shared");
    }

    @AfterAll
    static void stop() throws IOException {
        long pid = driver.pid();
        driver.close();
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        try (var list = Files.list(Path.of("/tmp/ray"))) {
            assertEquals(List.of(), list.filter(p -> p.getFileName().toString()
                    .endsWith("_" + pid)).toList(), "the driver left its LOCAL session folder");
        } catch (java.nio.file.NoSuchFileException e) {
            // no /tmp/ray at all: nothing left
        }
        Processes.deleteTree(logs);
    }

    @Test
    void commandsRunInTheChildAndReturnResults() {
        String reply = driver.call(new TestTasks.Echo("hi"));
        assertEquals("hi@" + driver.pid() + "@local", reply);
        assertNotEquals(ProcessHandle.current().pid(), driver.pid());
        assertEquals("local", driver.address());
    }

    @Test
    void aCollectiveRunsInTheDriver() {
        TestTasks.RingReport r = driver.call(new TestTasks.RingCheck("ring", 3, 1001));
        assertTrue(r.maxError <= 1e-6, "max error " + r.maxError);
        assertEquals(List.of(3f, 1f, 4f).toString(), List.of(r.broadcast[0], r.broadcast[1],
                r.broadcast[2]).toString());
        assertEquals(2L * 2 * 1001 * Float.BYTES + 2L * 3 * Float.BYTES, r.stats.bytesSent());
    }

    @Test
    void eventsArriveInOrderBeforeTheResultAndABadOneIsDropped() throws Exception {
        List<Object> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        String result = driver.submit(new TestTasks.Countdown(5), events::add)
                .get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals("done", result);
        assertEquals(List.of(1, 2, 3, 4, 5), events);
    }

    @Test
    void aDmlExceptionArrivesWithItsOwnMessage() {
        DmlException e = assertThrows(DmlException.class,
                () -> driver.call(new TestTasks.Fail(true)));
        assertEquals("Nothing to train.\nLoad a dataset first.", e.getMessage());
        assertTrue(e.getCause().getMessage().contains("TestTasks$Fail.run"),
                "the driver's stack trace is the cause");
    }

    @Test
    void otherExceptionsNameTheCommandAndTheLog() {
        DmlException e = assertThrows(DmlException.class,
                () -> driver.call(new TestTasks.Fail(false)));
        assertEquals("Fail failed in the driver: IllegalStateException: boom", e.what());
        assertEquals("The driver's stack trace is the cause; its log is " + driver.log() + ".",
                e.hint());
    }

    @Test
    void unserializableResultsAreExplained() {
        DmlException e = assertThrows(DmlException.class,
                () -> driver.call(new TestTasks.BadResult()));
        assertEquals("BadResult returned a java.lang.Object, which is not Serializable.\n"
                + "Return a Serializable value (a plain class, an array, a List).",
                e.getMessage());
    }

    @Test
    void aTimedOutCallIsInterruptedAndTheDriverStaysUsable() {
        DmlException e = assertThrows(DmlException.class,
                () -> driver.call(new TestTasks.Sleep(60_000), Duration.ofMillis(300)));
        assertEquals("Sleep did not finish within 300 ms in the driver.", e.what());
        assertEquals("ok@" + driver.pid() + "@local", driver.call(new TestTasks.Echo("ok")));
    }

    @Test
    void killingTheDriverFailsItsCallsButNotThisJvm() throws Exception {
        DriverProcess doomed = launchLocal("doomed");
        try {
            CompletableFuture<String> pending = doomed.submit(new TestTasks.Sleep(60_000));
            ProcessHandle.of(doomed.pid()).orElseThrow().destroyForcibly();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> pending.get(30, TimeUnit.SECONDS));
            DmlException cause = (DmlException) e.getCause();
            assertEquals("The Ray driver process (pid " + doomed.pid() + ") exited with code 137;"
                    + " Sleep did not complete.", cause.what());
            assertTrue(cause.hint().startsWith("Open a new driver with RayCluster.openDriver()"));
            DmlException later = assertThrows(DmlException.class,
                    () -> doomed.call(new TestTasks.Echo("x")));
            assertTrue(later.what().contains("exited with code 137"), later.what());
            assertFalse(doomed.isAlive());
        } finally {
            doomed.close();
        }
        try (var list = Files.list(Path.of("/tmp/ray"))) {
            assertEquals(List.of(), list.filter(p -> p.getFileName().toString()
                    .endsWith("_" + doomed.pid())).toList(), "a killed driver left its files");
        }
        assertEquals("still here", driver.call(new TestTasks.Echo("still here"))
                .split("@")[0]);
    }
}
