package dev.dml.ray.ps;

/**
 * How a worker reaches the job's parameter servers, whatever moves the bytes: it pushes the
 * change its step made to the parameters and gets back the parameters the servers hold.
 */
public interface ServerLink extends AutoCloseable {

    /**
     * Pushes a change to every server's partition and returns the whole parameter vector, once
     * every server's staleness gate let this client on.
     *
     * @param clock the steps this client has completed with the change
     * @param delta the change, the whole flat vector
     * @return the parameters now, the whole flat vector
     */
    float[] pushPull(long clock, float[] delta);

    /**
     * Returns the parameters the servers hold now.
     *
     * @return the whole flat vector
     */
    float[] pull();

    /**
     * Returns the bytes this link sent and received so far.
     *
     * @return the bytes
     */
    long bytes();

    /** Closes the link's connections, if it holds any. */
    @Override
    default void close() {}
}
