package dev.dml.magics;

import dev.dml.events.ProgressListener;

/**
 * A {@code %dml train} request resolved against the data, not started yet: {@link #start}
 * starts it on the backend that prepared it.
 */
public interface PreparedJob {

    /**
     * Returns the job's name, as the live plot titles it.
     *
     * @return the name
     */
    String name();

    /**
     * Returns the epochs the job runs.
     *
     * @return epochs
     */
    int epochs();

    /**
     * Returns the steps over all epochs.
     *
     * @return steps
     */
    long totalSteps();

    /**
     * Returns one line on what will run, e.g. "mlp [64] on 9,000 rows x 31 features, 2 workers".
     *
     * @return the line
     */
    String description();

    /**
     * Starts the job, opening the session's cluster first when needed; returns once the job
     * has been submitted.
     *
     * @param progress where the job's progress goes, from one thread
     * @return the running job
     */
    RunningJob start(ProgressListener progress);

    /**
     * Returns the request it came from.
     *
     * @return the request
     */
    TrainRequest request();
}
