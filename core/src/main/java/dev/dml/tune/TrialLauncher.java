package dev.dml.tune;

import dev.dml.events.ProgressListener;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Starts a sweep's trials as ordinary jobs: the notebook through its backend, Java through
 * {@code Dml.start}. Each trial gets its own workers.
 */
public interface TrialLauncher {

    /**
     * Starts a trial's job and returns once it runs.
     *
     * @param trial the trial: its options, the sweep id among them
     * @param progress receives the job's progress (the sweep's ASHA decisions listen here)
     * @return the running job
     * @throws RuntimeException a dml exception when the job cannot start
     */
    Running start(Trial trial, ProgressListener progress);

    /** A trial's running job. */
    interface Running {
        /**
         * Waits at most {@code timeout} for the job's end.
         *
         * @param timeout how long to wait
         * @return whether it has ended
         * @throws InterruptedException when the waiting thread is interrupted
         */
        boolean awaitEnd(Duration timeout) throws InterruptedException;

        /** Stops the job cooperatively (its stop path) and returns once its workers ended. */
        void stop();

        /**
         * Returns what the ended job produced.
         *
         * @return the result (a model); with a stopped job, the model as it was
         * @throws RuntimeException the job's failure
         */
        Object result();

        /**
         * Tells whether the ended job was stopped before its last epoch: a stop asked for just
         * as the job finished its last epoch does not count.
         *
         * @return whether it stopped early
         */
        boolean stopped();

        /**
         * A running job made of the four calls of the job it stands for.
         *
         * @param awaitEnd waits for the job's end, as {@link #awaitEnd}
         * @param stop stops it, as {@link #stop}
         * @param result its result, as {@link #result}
         * @param stopped whether it stopped early, as {@link #stopped}
         * @return the running job
         */
        static Running of(AwaitEnd awaitEnd, Runnable stop, Supplier<Object> result,
                BooleanSupplier stopped) {
            return new Running() {
                @Override
                public boolean awaitEnd(Duration timeout) throws InterruptedException {
                    return awaitEnd.awaitEnd(timeout);
                }

                @Override
                public void stop() {
                    stop.run();
                }

                @Override
                public Object result() {
                    return result.get();
                }

                @Override
                public boolean stopped() {
                    return stopped.getAsBoolean();
                }
            };
        }
    }

    /** How a job is waited for: {@link Running#awaitEnd}. */
    @FunctionalInterface
    interface AwaitEnd {
        /**
         * Waits at most {@code timeout} for the job's end.
         *
         * @param timeout how long to wait
         * @return whether it has ended
         * @throws InterruptedException when the waiting thread is interrupted
         */
        boolean awaitEnd(Duration timeout) throws InterruptedException;
    }
}
