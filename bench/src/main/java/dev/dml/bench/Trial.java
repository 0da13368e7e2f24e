package dev.dml.bench;

/** One timed run of a subject or a peer; it times itself so that set-up and clean-up stay out. */
@FunctionalInterface
public interface Trial {

    /**
     * Runs once.
     *
     * @param round the round it runs in, to record the times of its parts
     * @return the seconds the measured part took
     * @throws Exception if the run fails; the benchmark stops
     */
    double seconds(Round round) throws Exception;
}
