package dev.dml.magics;

import dev.dml.DmlException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Supplier;

/**
 * What {@code %dml plan} and {@code %dml scale} share: both time jobs on the session's
 * cluster, so no other job may run beside them, and both run their jobs on a thread of their
 * own, so that a kernel interrupt stops the job under way (its workers end) before the cell
 * ends.
 */
final class Sizing {

    /** How long an interrupted job has to stop: a job kills its workers after 30 s. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(120);

    private Sizing() {}

    /** Refuses while a job of the session runs: its workers would distort the timings. */
    static void refuseWhileAJobRuns(DmlSession session, String command) {
        session.jobs().running().ifPresent(r -> {
            throw new DmlException("Job " + r.id() + " is running, and its workers would slow"
                    + " the timed runs of %dml " + command + ".", "Wait for it, or stop it"
                    + " with %dml stop " + r.id() + ", then run %dml " + command + ".");
        });
    }

    /**
     * Runs the work on its own thread and waits for it; on an interrupt, interrupts the work
     * (a job stops when the thread waiting for it is interrupted) and waits, at most {@link
     * #STOP_LIMIT}, for its end.
     *
     * @param command the command, for the thread's name and the message
     * @param work what to run
     * @param <T> its result
     * @return the result
     * @throws DmlException one line after an interrupt, saying whether a worker may still run
     */
    static <T> T stoppably(String command, Supplier<T> work) {
        FutureTask<T> task = new FutureTask<>(work::get);
        Thread t = new Thread(task, "dml-" + command);
        t.setDaemon(true);
        t.start();
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re
                    : new IllegalStateException(e.getCause());
        } catch (InterruptedException interrupt) {
            t.interrupt();
            try {
                t.join(STOP_LIMIT.toMillis());
            } catch (InterruptedException again) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                throw new DmlException("%dml " + command + " was interrupted, and its job did not"
                        + " stop within " + STOP_LIMIT.toSeconds() + " s.",
                        "Check %dml status; %dml stop ends what is left.");
            }
            throw new DmlException("%dml " + command + " was interrupted; its job was stopped"
                    + " and no worker runs.", "Run the cell again.");
        }
    }
}
