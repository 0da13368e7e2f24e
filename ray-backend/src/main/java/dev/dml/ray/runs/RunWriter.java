package dev.dml.ray.runs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a run's records in batches, off the thread that delivers the job's events: each event
 * only queues its writes, and a writer thread applies what is queued every {@link #EVERY}, as
 * one transaction of the store. A process that dies loses at most the last interval's events.
 */
final class RunWriter implements AutoCloseable {

    /** How often queued writes reach the store. */
    static final Duration EVERY = Duration.ofSeconds(1);
    /** How long closing waits for a batch that is being written. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(RunWriter.class);

    private final RunStore store;
    private final String runId;
    private final ScheduledExecutorService thread;
    private final Object flushing = new Object();
    private List<Runnable> queued = new ArrayList<>();

    RunWriter(RunStore store, String runId) {
        this.store = store;
        this.runId = runId;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dml-run-writer-" + runId);
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::flushQuietly, EVERY.toMillis(), EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Queues a write; it reaches the store with the next batch. */
    synchronized void add(Runnable write) {
        queued.add(write);
    }

    /** Writes what is queued now, as one transaction; returns once it is written. */
    void flush() {
        synchronized (flushing) { // one batch at a time, in the order queued
            List<Runnable> batch;
            synchronized (this) {
                batch = queued;
                queued = new ArrayList<>();
            }
            if (!batch.isEmpty()) {
                store.transaction(() -> batch.forEach(Runnable::run));
            }
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            // the job trains on: a record it cannot write must not stop it
            LOG.warn("run {}: could not write a batch of its records: {}", runId, e.toString());
        }
    }

    /** Stops the writer thread and writes what is still queued, in the calling thread. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("run {}: its writer did not finish a batch within {}", runId,
                        CLOSE_WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flush();
    }
}
