package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.events.JobEvent;
import dev.dml.events.JobStarted;
import dev.dml.events.ProgressListener;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A training job running in a driver: wait for it ({@link #await()}) or stop it ({@link
 * #stop()}). Its events reach the spec's {@link TrainingListener}s while it runs.
 *
 * <p>Stopping asks the workers to finish their current steps; the job then ends with a {@link
 * TrainResult} whose {@link TrainResult#stopped()} is {@code true}. If they have not finished
 * within the grace period, their actors are killed and {@link #await()} throws. Either way the
 * cluster and the driver stay usable. Interrupting a thread in {@link #await()} stops the job.
 */
public final class TrainJob {

    private static final Logger LOG = LoggerFactory.getLogger(TrainJob.class);
    private static final AtomicLong IDS = new AtomicLong();
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final String id;
    private final String key;
    private final DriverProcess driver;
    private final CompletableFuture<TrainResult> result;
    private final Runnable onEnd;
    private volatile List<WorkerInfo> workers = List.of();

    private TrainJob(String id, String key, DriverProcess driver,
            CompletableFuture<TrainResult> result, Runnable onEnd) {
        this.id = id;
        this.key = key;
        this.driver = driver;
        this.result = result;
        this.onEnd = onEnd;
    }

    /**
     * Starts a job in a driver and returns at once. The shards are encoded here, in the calling
     * JVM.
     *
     * @param spec the job
     * @param driver the driver, borrowed: the job does not close it
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver) {
        return start(spec, driver, List.of(), () -> { });
    }

    /**
     * Starts a job in a driver, with one more listener than its spec names (the notebook's
     * live plot), and returns at once.
     *
     * @param spec the job
     * @param driver the driver, borrowed: the job does not close it
     * @param progress receives the job's progress too
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver, ProgressListener progress) {
        return start(spec, driver, List.of(progress), () -> { });
    }

    /**
     * Starts a job in a driver; {@code onEnd} runs once the job has ended, however it ended.
     *
     * @param spec the job
     * @param driver the driver
     * @param onEnd run after the job ends (closes what the caller opened for it)
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver, Runnable onEnd) {
        return start(spec, driver, List.of(), onEnd);
    }

    /**
     * Starts a job in a driver, with more listeners than its spec names; {@code onEnd} runs
     * once the job has ended, after the listeners heard of it.
     *
     * @param spec the job
     * @param driver the driver, borrowed
     * @param extra receive the job's progress too (the live plot, the run's recorder)
     * @param onEnd run after the job ends (closes what the caller opened for it)
     * @return the running job
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver,
            List<ProgressListener> extra, Runnable onEnd) {
        String id = spec.name() + "-" + IDS.incrementAndGet() + "-" + Long.toHexString(
                System.nanoTime() & 0xffffff);
        long t0 = System.nanoTime();
        JobRunner runner = JobRunner.of(spec, id, Duration.ofMinutes(10));
        String key = runner.key;
        List<ProgressListener> listeners = new ArrayList<>(spec.listeners());
        listeners.addAll(extra);
        TrainJob[] self = new TrainJob[1];
        CompletableFuture<TrainResult> sent = driver.submit(runner, event -> {
            // %dml status lists these: a recovery or a resize replaces them
            if (event instanceof JobStarted started) {
                self[0].workers = started.workers();
            } else if (event instanceof Recovery recovery) {
                self[0].workers = recovery.workers();
            } else if (event instanceof Resize resize) {
                self[0].workers = resize.workers();
            }
            dispatch(listeners, event);
        });
        // off the driver's reader thread: onEnd may close that very driver
        CompletableFuture<TrainResult> done = sent.handleAsync((r, e) -> {
            try {
                if (e != null) {
                    Throwable c = e instanceof java.util.concurrent.CompletionException
                            && e.getCause() != null ? e.getCause() : e;
                    DmlException failure = c instanceof DmlException d ? d : new DmlException(
                            "Training job " + id + " failed: " + c + ".",
                            "See the driver log " + driver.log() + ".", c);
                    ending(listeners, "onFailed", l -> l.onFailed(failure));
                    throw failure;
                }
                TrainResult res = r.withWallSeconds((System.nanoTime() - t0) / 1e9);
                ending(listeners, "onEnd", l -> l.onEnd(res));
                return res;
            } finally {
                onEnd.run();
            }
        }, ending -> {
            Thread t = new Thread(ending, "dml-train-end-" + id);
            t.setDaemon(true);
            t.start();
        });
        TrainJob job = new TrainJob(id, key, driver, done, onEnd);
        self[0] = job;
        return job;
    }

    /** Tells each {@link TrainingListener} how the job ended; one that throws is logged. */
    private static void ending(List<ProgressListener> listeners, String call,
            java.util.function.Consumer<TrainingListener> tell) {
        for (ProgressListener p : listeners) {
            try {
                if (p instanceof TrainingListener l) {
                    tell.accept(l);
                }
            } catch (RuntimeException ex) {
                LOG.warn("listener {} failed in {}: {}", p, call, ex.toString());
            }
        }
    }

    private static void dispatch(List<ProgressListener> listeners, Object event) {
        if (!(event instanceof JobEvent jobEvent)) {
            // a training job's runner emits only job events; anything else is a bug to see
            LOG.warn("not a job event, not delivered: {}", event);
            return;
        }
        for (ProgressListener l : listeners) {
            try {
                l.deliver(jobEvent);
            } catch (RuntimeException e) {
                LOG.warn("listener {} failed on {}: {}", l, event, e.toString());
            }
        }
    }

    /**
     * Returns the job's id, unique in this JVM.
     *
     * @return the id
     */
    public String id() {
        return id;
    }

    /**
     * Returns the workers once they have started.
     *
     * @return rank, pid and host of each, or empty before the start
     */
    public List<WorkerInfo> workers() {
        return workers;
    }

    /**
     * Tells whether the job has ended (finished, stopped or failed).
     *
     * @return {@code true} once ended
     */
    public boolean isDone() {
        return result.isDone();
    }

    /**
     * Returns the result as a future, for callers that compose.
     *
     * @return the future result
     */
    public CompletableFuture<TrainResult> future() {
        return result;
    }

    /**
     * Waits at most {@code timeout} for the job's end, whatever it was: finished, stopped or
     * failed ({@link #await()} then returns the result or throws the failure).
     *
     * @param timeout how long to wait
     * @return whether it has ended
     * @throws InterruptedException when the waiting thread is interrupted; the job goes on
     */
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        try {
            result.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException | java.util.concurrent.CancellationException failed) {
            return true;
        } catch (TimeoutException running) {
            return false;
        }
    }

    /**
     * Waits for the job's end.
     *
     * @return the result ({@link TrainResult#stopped()} when it was stopped)
     * @throws DmlException when the job failed (a worker died, a bad value) or was killed; on
     *     interrupt, after stopping the job
     */
    public TrainResult await() {
        return await(Duration.ofDays(365));
    }

    /**
     * Waits at most {@code timeout} for the job's end.
     *
     * @param timeout how long to wait
     * @return the result
     * @throws DmlException when the job failed or did not end in time (it keeps running)
     */
    public TrainResult await(Duration timeout) {
        try {
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof DmlException ? (DmlException) c
                    : new DmlException("Training job " + id + " failed: " + c + ".",
                            "See the driver log " + driver.log() + ".", c);
        } catch (TimeoutException e) {
            throw new DmlException("Training job " + id + " did not end within "
                    + timeout.toSeconds() + " s; it keeps running.",
                    "Wait again with await(), or stop it with stop().");
        } catch (InterruptedException e) {
            try {
                stopNow(); // with the interrupt cleared, so that it waits for the end
            } finally {
                Thread.currentThread().interrupt();
            }
            throw new DmlException("Waiting for training job " + id + " was interrupted; the"
                    + " job was stopped.", "Start it again; {resume} continues from its"
                    + " last checkpoint.", e);
        }
    }

    /**
     * Stops the job: the workers finish their current steps, the job returns what it has, and
     * its actors end. Kills the actors if that takes longer than 30 s. Returns once the job has
     * ended; does nothing when it already has.
     *
     * @return the partial result, or {@code null} when the actors had to be killed or the job
     *     failed
     */
    public TrainResult stop() {
        if (result.isDone()) {
            return result.isCompletedExceptionally() ? null : result.join();
        }
        send(false);
        try {
            return result.get(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("job {} did not stop within {}; killing its workers", id, STOP_GRACE);
        } catch (ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            try {
                stopNow(); // with the interrupt cleared, so that it waits for the end
            } finally {
                Thread.currentThread().interrupt();
            }
            return null;
        }
        stopNow();
        return null;
    }

    /** Kills the job's actors at once and waits (at most 30 s) for the job to end. */
    private void stopNow() {
        send(true);
        try {
            result.get(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException
                | java.util.concurrent.CancellationException e) {
            // ended (or gave up): the caller reports
        }
    }

    private void send(boolean kill) {
        try {
            driver.call(new StopJob(key, kill), Duration.ofSeconds(30));
        } catch (DmlException e) {
            LOG.warn("could not send stop to job {}: {}", id, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "TrainJob[" + id + (isDone() ? ", done" : ", running") + "]";
    }
}
