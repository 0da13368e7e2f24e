package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.JobEvent;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.ForwardingContext;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A training job that outlives the kernel which started it: it runs in a driver of its own,
 * its progress goes to a {@link Record} in that driver (the run store), never back to the
 * kernel, and it stops when its record asks it to. The driver waits for it after the kernel
 * has gone ({@link #outlivesKernel()}): as long as its {@code --deadline} plus {@link #GRACE},
 * or {@link #MAX_LIFETIME} without one.
 *
 * <p>The task answers the kernel once, with an event ({@link #TAKEN_OVER}) as soon as its
 * record has taken the run over; its result (the run's end) is for whoever is still listening.
 * Only Java-serialized (to its driver), so a record; {@link #of} makes one from a spec.
 *
 * @param runner the job, its shards encoded
 * @param record where its progress goes
 * @param lifetime how long the driver waits for it after the kernel has gone
 */
public record DetachedJob(JobRunner runner, DetachedJob.Record record, Duration lifetime)
        implements DriverTask<String> {

    /** The longest a detached job without {@code --deadline} may run after its kernel left. */
    public static final Duration MAX_LIFETIME = Duration.ofDays(7);
    /** What a detached job with {@code --deadline} gets beyond it to save and end. */
    public static final Duration GRACE = Duration.ofMinutes(10);
    /** The event sent once the record holds the run. */
    public static final String TAKEN_OVER = "taken over";

    private static final Logger LOG = LoggerFactory.getLogger(DetachedJob.class);
    /** How often the record is asked whether someone wants the job stopped. */
    private static final Duration STOP_POLL = Duration.ofSeconds(1);

    /**
     * Where a detached job's progress goes, in the driver: made in the kernel, sent with the
     * job.
     */
    public interface Record extends Serializable {
        /**
         * Takes the run over in the driver process: from now on this process records it.
         *
         * @return the listener that records the job's progress and end
         */
        TrainingListener takeOver();

        /**
         * Tells whether someone asked this run to stop; asked every second.
         *
         * @return {@code true} once a stop was asked for
         */
        boolean stopRequested();
    }

    /**
     * Makes the detached form of a job; its shards are encoded here, in the kernel.
     *
     * @param spec the job
     * @param job its id, unique in the run store (the run's id)
     * @param record where its progress goes
     * @return the task to submit to a driver of its own
     */
    public static DetachedJob of(TrainSpec spec, String job, Record record) {
        Double deadline = spec.get(TrainOptions.DEADLINE);
        Duration lifetime = deadline == null ? MAX_LIFETIME
                : Duration.ofMillis((long) (deadline * 1000)).plus(GRACE);
        return new DetachedJob(JobRunner.of(spec, job, Duration.ofMinutes(10)), record,
                lifetime);
    }

    @Override
    public Duration outlivesKernel() {
        return lifetime;
    }

    @Override
    public String run(DriverContext context) {
        TrainingListener listener = record.takeOver();
        context.emit(TAKEN_OVER);
        long t0 = System.nanoTime();
        ScheduledExecutorService poll = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dml-detached-stop-poll");
            t.setDaemon(true);
            return t;
        });
        poll.scheduleWithFixedDelay(() -> stopIfAsked(context), STOP_POLL.toMillis(),
                STOP_POLL.toMillis(), TimeUnit.MILLISECONDS);
        try {
            TrainResult result = runner.run(new Recording(context, listener))
                    .withWallSeconds((System.nanoTime() - t0) / 1e9);
            listener.onEnd(result);
            return result.stopped() ? "stopped" : "finished";
        } catch (RuntimeException e) {
            listener.onFailed(e instanceof DmlException d ? d : new DmlException(
                    "Training job " + runner.key + " failed: " + e + ".",
                    "See the driver's log.", e));
            throw e;
        } finally {
            poll.shutdownNow();
        }
    }

    /** Asks the running job to stop, through its control, once its record says so. */
    private void stopIfAsked(DriverContext context) {
        try {
            if (record.stopRequested()) {
                context.lookup(runner.key, JobControl.class).requestStop();
            }
        } catch (RuntimeException e) {
            // not registered yet, or already ended; asked again in a second
            LOG.debug("stop of {} not delivered yet: {}", runner.key, e.toString());
        }
    }

    /** The driver's context, with the job's events going to its record instead of the kernel. */
    private static final class Recording extends ForwardingContext {
        private final TrainingListener listener;

        Recording(DriverContext driver, TrainingListener listener) {
            super(driver);
            this.listener = listener;
        }

        @Override
        public void emit(Serializable event) {
            try {
                if (event instanceof JobEvent e) {
                    listener.deliver(e);
                }
            } catch (RuntimeException e) {
                LOG.warn("recording {} failed: {}", event, e.toString());
            }
        }
    }
}
