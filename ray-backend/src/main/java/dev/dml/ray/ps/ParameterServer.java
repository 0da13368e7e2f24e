package dev.dml.ray.ps;

import dev.dml.ray.collective.NodeAddress;
import io.ray.api.Ray;

/**
 * A parameter server, a Ray actor: it holds one {@link PartitionState} and serves the job's workers
 * concurrently, in its own concurrency group ({@value #SERVING}), so that a worker held at the
 * staleness gate does not hold up the others' pushes. The driver seeds it before every run of
 * steps ({@link #seed}); workers call {@link #pushPull}; the driver's probe after a failure
 * calls {@link #abort}.
 */
public class ParameterServer {

    /** The concurrency group of {@link #pushPull} and {@link #abort}. */
    public static final String SERVING = "dml-ps";

    private final PartitionState state = new PartitionState();
    private TcpPartitionServer direct;

    /** Creates a server; Ray calls it. */
    public ParameterServer() {}

    /**
     * Opens this server's direct TCP endpoint on the address the cluster knows its node by
     * (loopback in LOCAL mode).
     *
     * @param token the job's token, which clients present
     * @return {@code host:port}, or empty when no socket could be opened (clients then call
     *     through Ray)
     */
    public String listen(long token) {
        String host = Ray.getRuntimeContext().isLocalMode() ? "127.0.0.1"
                : NodeAddress.current()[1];
        try {
            if (direct != null) {
                direct.close();
            }
            direct = new TcpPartitionServer(state, token, host);
            return direct.address();
        } catch (java.io.IOException e) {
            direct = null;
            return "";
        }
    }

    /**
     * Starts over from a replica's parameters; see {@link PartitionState#seed}.
     *
     * @param partition this server's floats, as {@link FloatBytes}
     * @param clock the steps the job has completed
     * @param clients the clients that push
     * @param bound the staleness bound S, or -1 for none
     * @param waitMillis how long a gated client may wait for the slowest
     * @return this server's pid, which shows it is alive
     */
    public long seed(byte[] partition, long clock, int clients, int bound, long waitMillis) {
        state.seed(FloatBytes.floats(partition), clock, clients, bound, waitMillis);
        return ProcessHandle.current().pid();
    }

    /**
     * Adds a client's change and returns the partition; see {@link PartitionState#pushPull}.
     *
     * @param client the client's index
     * @param clock the steps the client has completed
     * @param delta the change, as {@link FloatBytes}
     * @return the partition after it, as {@link FloatBytes}
     */
    public byte[] pushPull(int client, long clock, byte[] delta) {
        return FloatBytes.of(state.pushPull(client, clock, FloatBytes.floats(delta)));
    }

    /**
     * Returns the partition now.
     *
     * @return its floats, as {@link FloatBytes}
     */
    public byte[] pull() {
        return FloatBytes.of(state.pull());
    }

    /**
     * Ends every wait at the gate until the next seed; see {@link PartitionState#abort}.
     *
     * @param why what happened
     * @return this server's pid
     */
    public long abort(String why) {
        state.abort(why);
        return ProcessHandle.current().pid();
    }
}
