package dev.dml.magics;

/** A {@code %dml train} request resolved against the data, not started yet. */
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
     * Returns the request it came from.
     *
     * @return the request
     */
    TrainRequest request();
}
