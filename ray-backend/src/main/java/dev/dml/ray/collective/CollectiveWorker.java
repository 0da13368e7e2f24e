package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import dev.dml.events.WorkerInfo;
import io.ray.api.ActorHandle;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

/**
 * A Ray actor that is one rank of an {@link ActorGroup} and can run collectives with its peers.
 *
 * <p>Extend it for actors that train: the group creates them, tells each its rank and its
 * peers ({@link #join}), and the subclass calls {@link #allReduce} on its gradients from inside
 * its own methods. Chunks move actor to actor over direct TCP links ({@link TransportKind#TCP},
 * the default) or through Ray's object store; the driver is not involved.
 *
 * <pre>{@code
 * public class Trainer extends CollectiveWorker {
 *     public float step(byte[] shard) {
 *         float[] grads = ...;
 *         float[] mean = allReduce(grads, ReduceOp.AVERAGE);
 *         ...
 *     }
 * }
 * try (ActorGroup<Trainer> group = ActorGroup.builder(Trainer::new).setSize(4).open()) {
 *     List<Float> losses = group.callEach(Trainer::step, shards);
 * }
 * }</pre>
 *
 * <p>Ray runs {@link #receive} and {@link #abort} in their own concurrency group ({@value
 * #DELIVERY_GROUP}), so chunks arrive, and a wait can be ended, while a method of the default
 * group waits in a collective. All other methods,
 * a subclass's included, run one at a time in call order. The group's methods are final so that
 * a subclass cannot break the protocol.
 */
public class CollectiveWorker {

    /** The concurrency group in which Ray runs {@link #receive} and {@link #abort}. */
    public static final String DELIVERY_GROUP = "dml-delivery";

    /** How long a rank tries to open a direct link before it takes Ray's object store. */
    private static final Duration CONNECT_WAIT = Duration.ofSeconds(5);

    private volatile Communicator comm;
    private volatile TcpEndpoint endpoint;
    private volatile WorkerInfo info;

    /** Creates a worker that has not joined a group yet. */
    public CollectiveWorker() {}

    /**
     * Whether this worker is about to leave its job (its machine is being taken away): a step
     * loop then votes with its peers to stop. Workers that recover from that say so.
     *
     * @return false here
     */
    public boolean leaving() {
        return false;
    }

    /**
     * Says where this worker runs, before the group numbers its members; called by {@link
     * ActorGroup}.
     *
     * @return pid, host, node id and node IP (rank not set yet)
     */
    public final WorkerInfo locate() {
        String[] node = NodeAddress.current();
        return new WorkerInfo(-1, 0, ProcessHandle.current().pid(), hostName(), node[0],
                node[1]);
    }

    /**
     * Opens this worker's endpoint for direct links before it joins a group, closing any
     * earlier one; called by {@link ActorGroup}.
     *
     * @param token the coming group's token, which its peers' connections present
     * @return {@code host:port} for peers to connect to, on the address the cluster knows
     *     this node by (loopback in LOCAL mode); empty when no socket could be opened, and
     *     peers reach this rank through Ray
     */
    public final String listen(long token) {
        closeLinks();
        try {
            endpoint = new TcpEndpoint(NodeAddress.listenHost(), token);
        } catch (java.io.IOException e) {
            endpoint = null;
            return ""; // the group's metrics say which links fell back
        }
        return endpoint.address();
    }

    /**
     * Makes this worker rank {@code rank} of a group; called by {@link ActorGroup}.
     *
     * @param rank this worker's rank
     * @param worldSize the number of workers
     * @param peers every worker of the group, by rank (this one included)
     * @param nodeOfRank the node id of every worker, by rank: links inside a node and across
     *     nodes differ, and the all-reduce uses both as fits
     * @param links the collectives' timeout and how the ranks reach each other
     * @return who this worker is, with the way it reaches its peers
     */
    public final WorkerInfo join(
            int rank, int worldSize, List<ActorHandle<CollectiveWorker>> peers,
            List<String> nodeOfRank, GroupLinks links) {
        if (rank < 0 || rank >= worldSize || peers.size() != worldSize
                || nodeOfRank.size() != worldSize
                || (links.direct() && links.size() != worldSize)) {
            throw new CollectiveException(
                    "Bad group membership: rank " + rank + " of " + worldSize + " with "
                            + peers.size() + " peers on " + nodeOfRank.size() + " nodes.",
                    "Create workers with ActorGroup.builder(...).open(), not by hand.");
        }
        Communicator old = comm;
        if (old != null) {
            old.close();
        }
        Transport ray = new RayTransport(rank, peers);
        TcpEndpoint ep = endpoint;
        Transport transport = ray;
        Topology topology = new Topology(nodeOfRank);
        if (links.direct() && ep != null) {
            TcpTransport tcp = new TcpTransport(rank, links.token(), links.endpoints(), ray,
                    CONNECT_WAIT, peer -> topology.sameNode(rank, peer));
            tcp.connectAll();
            transport = tcp;
        }
        Communicator c = new Communicator(rank, transport, topology,
                Duration.ofMillis(links.timeoutMillis()));
        if (ep != null) {
            ep.bind(c);
        }
        this.comm = c;
        this.info = locate().withRank(rank, worldSize).withTransport(transport.describe());
        return info;
    }

    /**
     * Takes a chunk from a peer; called by peers, through Ray, during a collective.
     *
     * @param from the sending rank
     * @param seq the collective's sequence number
     * @param step the step within the collective
     * @param payload the chunk
     * @return {@code true}, as the delivery's acknowledgement
     */
    public final boolean receive(int from, long seq, int step, byte[] payload) {
        // Ray hands an empty byte[] (a ring chunk of an array shorter than the group) over as null
        communicator().deliver(from, seq, step, payload == null ? new byte[0] : payload);
        return true;
    }

    /**
     * Ends the collective this worker waits in, and every later one, with a {@link
     * CollectiveException}, so that a method stuck waiting for a dead peer returns; called by
     * {@link ActorGroup#probe}, through Ray, in the delivery group. A new {@link #join} clears
     * it.
     *
     * @param why what happened, for the exception
     * @return this worker's pid, which shows it is alive
     */
    public final long abort(String why) {
        Communicator c = comm;
        if (c != null) {
            c.abort(why);
        }
        return ProcessHandle.current().pid();
    }

    /**
     * Reduces {@code data} element-wise across every rank of the group (a ring all-reduce).
     * Every rank must call it, with arrays of the same length.
     *
     * @param data this rank's array; not modified
     * @param op sum or average
     * @return a new array with the result, the same on every rank
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final float[] allReduce(float[] data, ReduceOp op) {
        return communicator().allReduce(data, op);
    }

    /**
     * The range of a {@code length}-element array that this rank owns in {@link
     * #reduceScatter} and {@link #allGather}: about {@code 1/N} of it, the same for the same
     * group and length.
     *
     * @param length the array's length
     * @return {@code {from, to}}
     */
    public final int[] shardRange(int length) {
        return ShardRing.range(communicator(), length);
    }

    /**
     * The first half of an all-reduce (ZeRO's reduce-scatter): sums or averages every rank's
     * {@code buf} into the range this rank owns, bitwise as {@link #allReduce} would there.
     * Every rank must call it, with arrays of the same length.
     *
     * @param buf this rank's array, overwritten: its own range with the result, the rest with
     *     partial sums
     * @param op sum or average
     * @return the range this rank owns, {@code {from, to}}
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final int[] reduceScatter(float[] buf, ReduceOp op) {
        return ShardRing.reduceScatter(communicator(), buf, op);
    }

    /**
     * The second half of an all-reduce: fills every rank's {@code buf} with each rank's own
     * range of it ({@link #shardRange}). Every rank must call it, with arrays of the same
     * length.
     *
     * @param buf this rank's array, its own range set; every other range is overwritten
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final void allGather(float[] buf) {
        allGather(buf, 0, buf.length);
    }

    /**
     * {@link #allGather} over {@code buf[from, to)} alone: each rank's own range there is the
     * one {@link #shardRange}{@code (to - from)} gives, shifted by {@code from}.
     *
     * @param buf this rank's array, its own range of {@code [from, to)} set
     * @param from the first element gathered
     * @param to one past the last
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final void allGather(float[] buf, int from, int to) {
        ShardRing.allGather(communicator(), buf, from, to);
    }

    /**
     * Sums one number over every rank, the same on each (to about 48 bits): a sharded
     * gradient's global norm.
     *
     * @param x this rank's part
     * @return the sum of every rank's part
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final double sumOverRanks(double x) {
        return ShardRing.sum(communicator(), x);
    }

    /**
     * Sums or averages {@code data} across every rank in a compressed format, with error
     * feedback kept in {@code compressor} (see {@link GradientCompression}). Every rank must
     * call it with the same scheme. A {@link GradientCompression.None} scheme is {@link
     * #allReduce}; a separate name, since Ray tells actor methods apart by name.
     *
     * @param data this rank's array; not modified
     * @param op sum or average
     * @param compressor this rank's scheme and residual, which this call updates
     * @return a new array with the result, the same on every rank
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final float[] allReduceCompressed(float[] data, ReduceOp op,
            GradientCompressor compressor) {
        return communicator().allReduce(data, op, compressor);
    }

    /**
     * Sends this rank's vote to stop after the current step to every peer, without waiting for
     * theirs ({@link StopVote#anyStop} does). Every rank must vote as often as the others.
     *
     * @param stop whether this rank wants to stop, as {@link #leaving} says
     * @return the vote, to read once the step's gradients are reduced
     */
    public final StopVote voteToStop(boolean stop) {
        return communicator().vote(stop);
    }

    /**
     * Returns rank 0's {@code data} on every rank. Every rank must call it.
     *
     * @param data the array on rank 0; ignored (may be empty) on other ranks
     * @return a copy of rank 0's array
     * @throws CollectiveException when a peer fails or does not take part in time
     */
    public final float[] broadcast(float[] data) {
        return communicator().broadcast(data);
    }

    /**
     * Sums {@code data} over the ranks on this worker's node only; every rank of the group
     * must call it as often as the others (see {@link #nodePlace()}).
     *
     * @param data this rank's array; not modified
     * @return the node's sum
     */
    public final float[] nodeSum(float[] data) {
        return communicator().nodeSum(data);
    }

    /**
     * Returns the node leader's {@code data} on every rank of its node.
     *
     * @param data the array on the node's leader (its lowest rank); ignored on the others
     * @return a copy of the leader's array
     */
    public final float[] nodeBroadcast(float[] data) {
        return communicator().nodeBroadcast(data);
    }

    /**
     * Says where this worker's node stands among the group's nodes.
     *
     * @return {the node's index, the nodes, 1 when this rank leads its node else 0}
     */
    public final int[] nodePlace() {
        return communicator().nodePlace();
    }

    /**
     * Returns what this worker's collectives moved so far.
     *
     * @return the stats
     */
    public final CollectiveStats stats() {
        return communicator().stats();
    }

    /**
     * Returns who this worker is.
     *
     * @return rank, world size, pid and host
     */
    public final WorkerInfo info() {
        communicator();
        return info;
    }

    /**
     * Returns this worker's rank, for subclasses.
     *
     * @return the rank
     */
    protected final int rank() {
        return communicator().rank();
    }

    /**
     * Returns the number of workers in the group, for subclasses.
     *
     * @return the world size
     */
    protected final int worldSize() {
        return communicator().size();
    }

    private void closeLinks() {
        TcpEndpoint ep = endpoint;
        if (ep != null) {
            ep.close();
        }
    }

    /** The rank's side of the collectives; {@link ShardedGradients} runs ring halves on it. */
    final Communicator communicator() {
        Communicator c = comm;
        if (c == null) {
            throw new CollectiveException(
                    "This worker has not joined a group.",
                    "Create workers with ActorGroup.builder(...).open(), which joins them.");
        }
        return c;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
