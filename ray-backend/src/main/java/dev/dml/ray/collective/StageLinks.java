package dev.dml.ray.collective;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Direct TCP links between the stages of one pipeline replica, so that a stage hands its
 * activations forward and its input gradients back itself, with no driver-submitted task and no
 * object-store round trip per micro-batch.
 *
 * <p>Formed like a group's links: each stage {@link #listen}s, the driver hands every stage the
 * replica's endpoints and a fresh token, and each {@link #connect}s to its neighbours. Unlike a
 * group's links there is no per-link fallback: the hand-offs either all go direct or the driver
 * runs the replica through Ray's object references, as before, and says why. A neighbour whose
 * connection ends fails this stage's waits at once; {@link #close} on a failed step passes that
 * on down the chain.
 *
 * <pre>{@code
 * StageLinks links = StageLinks.listen(token);       // on every stage
 * links.connect(stage, endpoints, nodes, token, timeout); // once all listen
 * links.send(stage + 1, microbatch, StageLinks.FORWARD, activation);
 * byte[] g = links.take(stage + 1, microbatch, StageLinks.BACKWARD);
 * }</pre>
 */
public final class StageLinks implements AutoCloseable {

    /** What an activation travelling to the next stage is keyed by. */
    public static final int FORWARD = 0;

    /** What an input gradient travelling to the stage before is keyed by. */
    public static final int BACKWARD = 1;

    private final TcpEndpoint endpoint;
    private volatile Communicator comm;

    private StageLinks(TcpEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * Opens this stage's listening socket on its node's address.
     *
     * @param token the replica's token, which its neighbours' connections present
     * @return the links, not connected yet
     * @throws CollectiveException when no socket can be opened
     */
    public static StageLinks listen(long token) {
        try {
            return new StageLinks(new TcpEndpoint(NodeAddress.listenHost(), token));
        } catch (IOException e) {
            throw new CollectiveException("This stage could not open a listening socket: "
                    + e.getMessage() + ".", "Its replica's hand-offs go through Ray instead.", e);
        }
    }

    /**
     * Returns where the neighbours connect to.
     *
     * @return {@code host:port}
     */
    public String address() {
        return endpoint.address();
    }

    /**
     * Connects to the neighbouring stages, now, so that a link that cannot form fails here and
     * not in the middle of a step.
     *
     * @param stage this stage's index in the replica
     * @param endpoints every stage's {@link #address}, by stage
     * @param nodes every stage's node id, by stage: stages on one node share memory for big
     *     hand-offs
     * @param token the replica's token
     * @param timeout how long a hand-off may be waited for
     * @throws CollectiveException when a neighbour cannot be reached
     */
    public void connect(int stage, List<String> endpoints, List<String> nodes, long token,
            Duration timeout) {
        List<InetSocketAddress> peers = new ArrayList<>();
        for (String e : endpoints) {
            peers.add(TcpEndpoint.parse(e));
        }
        TcpTransport tcp = new TcpTransport(stage, token, peers, null, Duration.ofSeconds(5),
                peer -> nodes.get(peer).equals(nodes.get(stage)));
        Communicator c = new Communicator(stage, peers.size(), tcp, timeout);
        endpoint.bind(c);
        comm = c;
        tcp.connectAll();
    }

    /**
     * Hands bytes to another stage without waiting for them to arrive.
     *
     * @param to the receiving stage
     * @param microbatch the micro-batch, numbered over the job
     * @param direction {@link #FORWARD} or {@link #BACKWARD}
     * @param payload the bytes
     */
    public void send(int to, long microbatch, int direction, byte[] payload) {
        connected().send(new int[] {to}, microbatch, direction, payload);
    }

    /**
     * Waits for the bytes another stage handed this one.
     *
     * @param from the sending stage, for messages
     * @param microbatch the micro-batch, numbered over the job
     * @param direction {@link #FORWARD} or {@link #BACKWARD}
     * @return the bytes
     * @throws CollectiveException when they do not come in time, or the sender's link ended
     */
    public byte[] take(int from, long microbatch, int direction) {
        return connected().take(microbatch, direction, from, -1,
                direction == FORWARD ? "activation" : "input gradient");
    }

    /**
     * Returns what these links moved so far.
     *
     * @return the stats
     */
    public CollectiveStats stats() {
        return connected().stats();
    }

    private Communicator connected() {
        Communicator c = comm;
        if (c == null) {
            throw new CollectiveException("This stage's links are not connected.",
                    "The driver connects a replica's stages before its first step.");
        }
        return c;
    }

    /** Closes the socket and the links: the neighbours' waits end at once. */
    @Override
    public void close() {
        endpoint.close();
        Communicator c = comm;
        if (c != null) {
            c.close();
        }
    }
}
