package dev.dml.magics;

import dev.dml.events.ProgressListener;
import java.time.Duration;

/**
 * A recorded run that {@code %dml attach} follows: a job detached by an earlier kernel, or any
 * run of the run store. The backend opens it; the cell closes it.
 */
public interface AttachedRun extends AutoCloseable {

    /**
     * Returns the run's job name.
     *
     * @return the name
     */
    String name();

    /**
     * Returns the epochs the run was started with.
     *
     * @return the epochs
     */
    int epochs();

    /**
     * Returns the steps the run was started with.
     *
     * @return the total steps
     */
    long totalSteps();

    /**
     * Replays the run's recorded progress to {@code progress}, then follows it, reading the
     * record every {@code poll}, until the run ends.
     *
     * @param progress the live plot
     * @param poll how often the record is read
     * @return how the run ended: {@code finished}, {@code stopped}, {@code failed} or {@code
     *     lost}
     * @throws InterruptedException on a kernel interrupt; the run goes on
     */
    String follow(ProgressListener progress, Duration poll) throws InterruptedException;

    /**
     * Returns the run's trained model, once it ended finished or stopped.
     *
     * @return the result, as {@code %dml train} binds one
     */
    Object result();

    /**
     * Returns the error a failed run ended with.
     *
     * @return the error, or null
     */
    String error();

    @Override
    void close();
}
