package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a head's owner leaves behind when it is killed: nothing. */
class ProcessesTest {

    @Test
    void aHeadAndItsFolderEndWhenTheJvmThatOwnsThemIsKilled(@TempDir Path root)
            throws Exception {
        Process owner = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                WatchdogProbe.class.getName(), root.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String[] started;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8))) {
            started = out.readLine().split(" ", 2);
        } finally {
            owner.destroyForcibly(); // SIGKILL: no shutdown hook runs
        }
        assertTrue(owner.waitFor(30, TimeUnit.SECONDS));
        long head = Long.parseLong(started[0]);
        Path dir = Path.of(started[1]);
        // the watchdog notices within a second, and the head ends on SIGTERM
        ProcessChecks.awaitDead(List.of(head), Duration.ofSeconds(30), "the head");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.exists(dir) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertFalse(Files.exists(dir), dir + " outlived the JVM that owned it");
    }
}
