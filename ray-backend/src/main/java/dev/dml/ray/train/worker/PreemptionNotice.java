package dev.dml.ray.train.worker;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * A pre-emption notice reaching a worker: the SIGTERM a cloud sends before it takes a spot
 * machine away (AWS gives two minutes). The JVM's own handler would start its shutdown at once,
 * and Ray's shutdown hook would take the Ray runtime away from the step that is running; so a
 * worker in a job takes the signal itself. It finishes its step with its peers, its state goes
 * into their snapshots, and the driver replaces it (killing it). Should the driver never come,
 * the JVM exits after {@link #GRACE}.
 *
 * <p>One per worker actor, which owns it. A signal belongs to the whole JVM, so the one handler
 * ({@link Sigterm}, installed once per JVM) routes it to the notices of the workers that hold a
 * job's state; with none, it ends the JVM.
 */
final class PreemptionNotice {

    private static final Logger LOG = LoggerFactory.getLogger(PreemptionNotice.class);

    /** The longest a noticed worker stays: inside the two minutes AWS gives, with room to exit. */
    static final Duration GRACE = Duration.ofSeconds(100);

    /** A process ended by SIGTERM exits with 128 + 15. */
    static final int TERMINATED = 143;

    private final IntConsumer exit;
    private volatile boolean noticed;
    private volatile boolean inJob;

    /** A worker's notice; it ends the JVM with {@code System.exit} when it must. */
    PreemptionNotice() {
        this(PreemptionNotice::exitJvm);
    }

    /**
     * A notice that ends the process through {@code exit}.
     *
     * @param exit called with the exit code, from a thread other than the signal's
     */
    PreemptionNotice(IntConsumer exit) {
        this.exit = exit;
    }

    /**
     * Marks the worker as holding a job's state and routes SIGTERM to this notice. The handler
     * is installed only in a worker's own JVM: actors of Ray's LOCAL mode share their caller's,
     * whose signals are its own.
     */
    void enterJob() {
        inJob = true;
        Sigterm.route(this);
    }

    /** The worker holds no job state any more: a notice now just ends the JVM. */
    void leaveJob() {
        inJob = false;
        Sigterm.forget(this);
        if (noticed) {
            exit("the job has released this worker");
        }
    }

    /**
     * Whether the worker was told to stop while it held a job's state.
     *
     * @return true after a notice
     */
    boolean noticed() {
        return noticed;
    }

    /** The notice arrives: finish the step with the peers, and exit after the grace. */
    void notice() {
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

    private void exit(String why) {
        LOG.warn("Exiting: {}", why);
        exit.accept(TERMINATED);
    }

    /** Not on the signal's thread: {@code System.exit} waits for the shutdown hooks. */
    private static void exitJvm(int code) {
        Thread t = new Thread(() -> System.exit(code), "dml-exit");
        t.setDaemon(true);
        t.start();
    }

    /** The JVM's one SIGTERM handler, which hands the signal to the notices in a job. */
    static final class Sigterm {
        private static final AtomicBoolean INSTALLED = new AtomicBoolean();
        private static final Set<PreemptionNotice> IN_JOB = ConcurrentHashMap.newKeySet();

        private Sigterm() {}

        static void route(PreemptionNotice notice) {
            IN_JOB.add(notice);
            if ("WORKER".equals(System.getProperty("ray.worker.mode"))
                    && INSTALLED.compareAndSet(false, true)) {
                Signal.handle(new Signal("TERM"), signal -> deliver());
            }
        }

        static void forget(PreemptionNotice notice) {
            IN_JOB.remove(notice);
        }

        /** What the handler does: every notice in a job takes it; with none, the JVM ends. */
        static void deliver() {
            if (IN_JOB.isEmpty()) {
                LOG.warn("Exiting: SIGTERM outside a job");
                exitJvm(TERMINATED);
                return;
            }
            IN_JOB.forEach(PreemptionNotice::notice);
        }
    }
}
