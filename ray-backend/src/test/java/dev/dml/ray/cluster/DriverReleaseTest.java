package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A released driver ({@link DriverProcess#release()}) finishes the tasks that outlive the
 * kernel, within the time each gives itself, then exits by itself; the other tasks end with
 * the channel, as when the kernel goes away.
 */
class DriverReleaseTest {

    /** Waits, then writes a file; outlives the kernel for {@code life}. */
    static final class LateWrite implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        private final String file;
        private final long waitMillis;
        private final Duration life;

        LateWrite(Path file, long waitMillis, Duration life) {
            this.file = file.toString();
            this.waitMillis = waitMillis;
            this.life = life;
        }

        @Override
        public String run(DriverContext context) throws Exception {
            context.emit("started");
            Thread.sleep(waitMillis);
            Files.writeString(Path.of(file), "done by " + ProcessHandle.current().pid());
            return "done";
        }

        @Override
        public Duration outlivesKernel() {
            return life;
        }
    }

    private static long releasedAfterStart(DriverProcess driver, LateWrite task)
            throws Exception {
        CompletableFuture<Object> started = new CompletableFuture<>();
        driver.submit(task, started::complete);
        assertEquals("started", started.get(60, TimeUnit.SECONDS));
        driver.release();
        return driver.pid();
    }

    private static boolean exits(long pid, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    @Test
    void aTaskThatOutlivesTheKernelFinishesAfterTheReleaseThenTheDriverExits(
            @TempDir Path dir) throws Exception {
        DriverProcess driver = DriverProcessLocalTest.launchLocal(dir, "outlives");
        Path file = dir.resolve("written");
        long pid = releasedAfterStart(driver, new LateWrite(file, 3_000,
                Duration.ofSeconds(60)));
        Thread.sleep(1_000);
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                "the driver ended with the channel");
        assertTrue(exits(pid, Duration.ofSeconds(60)), "the driver did not exit after its task");
        assertEquals("done by " + pid, Files.readString(file));
    }

    @Test
    void aTaskPastItsLifetimeIsCutAndOrdinaryTasksEndWithTheChannel(@TempDir Path dir)
            throws Exception {
        DriverProcess driver = DriverProcessLocalTest.launchLocal(dir, "cut");
        Path late = dir.resolve("late");
        long pid = releasedAfterStart(driver, new LateWrite(late, 30_000,
                Duration.ofSeconds(1)));
        assertTrue(exits(pid, Duration.ofSeconds(20)), "the driver waited past the lifetime");
        assertFalse(Files.exists(late));

        DriverProcess plain = DriverProcessLocalTest.launchLocal(dir, "plain");
        Path never = dir.resolve("never");
        long plainPid = releasedAfterStart(plain, new LateWrite(never, 30_000, Duration.ZERO));
        assertTrue(exits(plainPid, Duration.ofSeconds(20)), "an ordinary task held the driver");
        assertFalse(Files.exists(never));
    }
}
