package dev.dml.ray.train;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * A pre-emption notice reaching a worker's JVM: the SIGTERM a cloud sends before it takes a spot
 * machine away (AWS gives two minutes). The JVM's own handler would start its shutdown at once,
 * and Ray's shutdown hook would take the Ray runtime away from the step that is running; so a
 * worker in a job takes the signal itself. It finishes its step with its peers, its state goes
 * into their snapshots, and the driver replaces it (killing it). Should the driver never come,
 * the JVM exits after {@link #GRACE}. One per worker JVM.
 */
final class PreemptionNotice {

    private static final Logger LOG = LoggerFactory.getLogger(PreemptionNotice.class);

    /** The longest a noticed worker stays: inside the two minutes AWS gives, with room to exit. */
    static final Duration GRACE = Duration.ofSeconds(100);

    /** A process ended by SIGTERM exits with 128 + 15. */
    private static final int TERMINATED = 143;

    private static final AtomicBoolean ARMED = new AtomicBoolean();
    private static volatile boolean noticed;
    private static volatile boolean inJob;

    private PreemptionNotice() {}

    /**
     * Takes SIGTERM over, once per JVM, and marks the worker as holding a job's state. Only in a
     * worker's own JVM: actors of Ray's LOCAL mode share their caller's, whose signals are its
     * own.
     */
    static void enterJob() {
        inJob = true;
        if ("WORKER".equals(System.getProperty("ray.worker.mode"))
                && ARMED.compareAndSet(false, true)) {
            Signal.handle(new Signal("TERM"), signal -> onTerm());
        }
    }

    /** The worker holds no job state any more: a notice now just ends the JVM. */
    static void leaveJob() {
        inJob = false;
        if (noticed) {
            exit("the job has released this worker");
        }
    }

    /** Whether the JVM was told to stop while it held a job's state. */
    static boolean noticed() {
        return noticed;
    }

    private static void onTerm() {
        if (!inJob) {
            exit("SIGTERM outside a job");
            return;
        }
        noticed = true;
        LOG.warn("Pre-emption notice (SIGTERM): ending the step with the peers; the driver"
                + " replaces this worker, or it exits in {} s", GRACE.toSeconds());
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(GRACE.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            exit("no replacement within " + GRACE.toSeconds() + " s of the notice");
        }, "dml-preemption");
        deadline.setDaemon(true);
        deadline.start();
    }

    private static void exit(String why) {
        LOG.warn("Exiting: {}", why);
        // Not on the signal's thread: System.exit waits for the shutdown hooks.
        Thread t = new Thread(() -> System.exit(TERMINATED), "dml-exit");
        t.setDaemon(true);
        t.start();
    }
}
