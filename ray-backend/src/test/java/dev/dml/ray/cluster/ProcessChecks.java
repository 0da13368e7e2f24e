package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.List;

/** Checks on the processes a test saw a job start: whether they still run, and their end. */
public final class ProcessChecks {

    private ProcessChecks() {}

    /**
     * Tells whether a process runs.
     *
     * @param pid its id
     * @return whether it is alive
     */
    public static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * Waits, at most {@code timeout}, for every process to end, and fails on one still alive.
     *
     * @param pids the processes
     * @param timeout how long they have
     * @param what what they are, for the message ({@code process}, {@code worker})
     * @throws InterruptedException when the wait is interrupted
     */
    public static void awaitDead(List<Long> pids, Duration timeout, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && pids.stream().anyMatch(ProcessChecks::alive)) {
            Thread.sleep(100);
        }
        for (long pid : pids) {
            assertFalse(alive(pid), what + " " + pid + " still runs after " + timeout);
        }
    }
}
