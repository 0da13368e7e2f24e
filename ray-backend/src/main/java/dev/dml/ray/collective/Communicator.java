package dev.dml.ray.collective;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rank's side of the collectives: an all-reduce and a broadcast from rank 0, over a
 * {@link Transport} that moves the chunks.
 *
 * <p>The all-reduce is a ring (reduce-scatter, then all-gather, each in {@code n - 1} steps of
 * one chunk to the right neighbour) when the group lies on one node or has one rank per node.
 * When it spans nodes and a node holds several ranks it is hierarchical, as Horovod's and
 * NCCL's are: each node reduces inside itself (a ring reduce-scatter, then the pieces to the
 * node's leader), the leaders all-reduce across nodes in a ring of their own, and each leader
 * hands the result to its node. Only leaders cross nodes, each sending {@code 2(N-1)/N} of the
 * array for {@code N} nodes, however many ranks a node holds; the rest moves inside nodes,
 * through shared memory. The {@link CollectiveStats} count the bytes of both kinds of link.
 *
 * <p>Every rank must call the same collectives in the same order; each call gets the next
 * sequence number, which keys the chunks in the {@link Mailbox}. One collective runs at a time
 * per rank.
 */
final class Communicator {

    /** Apart the step numbers of an all-reduce's phases, so that their chunks never meet. */
    static final int PHASE = 1 << 20;
    /** The step number of a {@link StopVote}'s messages, which go to their own mailbox. */
    static final int VOTE = 7 * PHASE;

    private final int rank;
    private final int size;
    private final Transport transport;
    private final Topology topology;
    private final Duration timeout;
    private final Mailbox mailbox = new Mailbox();
    private final Mailbox votes = new Mailbox();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong interNodeBytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private long seq;
    private long voteSeq;

    Communicator(int rank, int size, Transport transport, Duration timeout) {
        this(rank, transport, Topology.singleNode(size), timeout);
    }

    Communicator(int rank, Transport transport, Topology topology, Duration timeout) {
        this.rank = rank;
        this.size = topology.size();
        this.transport = transport;
        this.topology = topology;
        this.timeout = timeout;
    }

    int rank() {
        return rank;
    }

    int size() {
        return size;
    }

    /** Stores a chunk rank {@code from} sent; called on a delivery thread. */
    void deliver(int from, long seq, int step, byte[] payload) {
        bytesReceived.addAndGet(payload.length);
        (step == VOTE ? votes : mailbox).deliver(from, seq, step, payload);
    }

    /** Ends the collective this rank waits in, and any later one, with a failure. */
    void abort(String why) {
        CollectiveException e = new CollectiveException("Rank " + rank + " stopped waiting for"
                + " its peers: " + why + ".", "The group must be joined again before its next"
                + " collective.");
        mailbox.abort(e);
        votes.abort(e);
    }

    /**
     * Sends this rank's vote to stop to every peer, without waiting; {@link StopVote#anyStop}
     * reads theirs. Every rank must vote as often as every other rank does.
     */
    synchronized StopVote vote(boolean stop) {
        long v = voteSeq++;
        votes.dropBefore(v);
        int[] to = java.util.stream.IntStream.range(0, size).filter(r -> r != rank).toArray();
        Transport.Delivery sent = to.length == 0 ? null
                : send(to, v, VOTE, new byte[] {(byte) (stop ? 1 : 0)});
        return () -> {
            boolean any = stop;
            for (int from : to) {
                any |= takeVote(v, from);
            }
            if (sent != null) {
                sent.await(timeout);
            }
            return any;
        };
    }

    /** Waits for a peer's vote of {@link #vote} number {@code v}. */
    private boolean takeVote(long v, int from) {
        byte[] b;
        try {
            b = votes.take(v, VOTE, from, timeout);
        } catch (TimeoutException e) {
            throw new CollectiveException("Rank " + rank + " got no stop vote from rank " + from
                    + " within " + within() + " (vote #" + v + ").",
                    "Every rank votes once a step; if a rank died, recovery forms a new group.");
        }
        return b.length > 0 && b[0] != 0;
    }

    /** Closes the transport's links: this rank has joined another group, or is done. */
    void close() {
        transport.close();
    }

    /** Returns a new array: the element-wise reduction of every rank's {@code data}. */
    synchronized float[] allReduce(float[] data, ReduceOp op) {
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        float[] buf = data.clone();
        List<Transport.Delivery> sent = new ArrayList<>();
        if (topology.hierarchical()) {
            hierarchical(buf, s, sent);
        } else if (size > 1) {
            reduceScatter(ring(), buf, 0, buf.length, s, 0, sent);
            allGather(ring(), buf, 0, buf.length, s, PHASE, sent);
        }
        return end(buf, op, sent, t0);
    }

    /** Every rank in ring order: node by node. */
    List<Integer> ring() {
        return topology.byNode().stream().flatMap(List::stream).toList();
    }

    /** Starts a collective ({@link ShardRing}'s): takes its sequence number; hold the lock. */
    long begin() {
        long s = seq++;
        mailbox.dropBefore(s);
        return s;
    }

    /** Averages if asked, waits until every chunk sent arrived, and counts the operation. */
    float[] end(float[] buf, ReduceOp op, List<Transport.Delivery> sent, long t0) {
        average(buf, op);
        for (Transport.Delivery d : sent) {
            d.await(timeout);
        }
        finish(t0);
        return buf;
    }

    private float[] average(float[] buf, ReduceOp op) {
        if (op == ReduceOp.AVERAGE && size > 1) {
            for (int i = 0; i < buf.length; i++) {
                buf[i] /= size;
            }
        }
        return buf;
    }

    /**
     * Returns a new array: the reduction of every rank's {@code data} in the compressor's
     * format ({@link CompressedAllReduce}); a {@link GradientCompression.None} scheme takes the
     * plain path above, bit for bit. {@link PowerSgd} runs as two plain all-reduces of its
     * factors ({@link LowRankAllReduce}), each counted in the stats as one operation.
     */
    synchronized float[] allReduce(float[] data, ReduceOp op, GradientCompressor compressor) {
        // a lone top-k rank still runs its momentum correction: its optimizer has none
        if (!compressor.scheme().lossy() || size == 1 && !(compressor.scheme() instanceof TopK)) {
            return allReduce(data, op);
        }
        if (compressor.scheme() instanceof PowerSgd) {
            return average(new LowRankAllReduce(this, compressor).sum(data.clone()), op);
        }
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        List<Transport.Delivery> sent = new ArrayList<>();
        float[] buf = new CompressedAllReduce(this, ring(), s, sent).sum(data.clone(), compressor);
        return end(buf, op, sent, t0);
    }

    /** Inside the node, then across nodes between leaders, then back inside the node. */
    private void hierarchical(float[] buf, long s, List<Transport.Delivery> sent) {
        List<Integer> local = topology.local(rank);
        int leader = local.get(0);
        int n = local.size();
        if (n > 1) {
            reduceScatter(local, buf, 0, buf.length, s, 0, sent);
            int pos = local.indexOf(rank);
            if (rank != leader) {
                int own = (pos + 1) % n;
                sent.add(send(new int[] {leader}, s, PHASE + pos,
                        Chunks.encode(buf, lo(buf, n, own), lo(buf, n, own + 1))));
            } else {
                for (int p = 1; p < n; p++) {
                    int chunk = (p + 1) % n;
                    Chunks.copyInto(buf, lo(buf, n, chunk), take(s, PHASE + p, local.get(p),
                            lo(buf, n, chunk + 1) - lo(buf, n, chunk), "all-reduce"));
                }
            }
        }
        if (rank == leader) {
            List<Integer> leaders = topology.leaders();
            reduceScatter(leaders, buf, 0, buf.length, s, 2 * PHASE, sent);
            allGather(leaders, buf, 0, buf.length, s, 3 * PHASE, sent);
        }
        if (n > 1) {
            if (rank == leader) {
                int[] to = local.subList(1, n).stream().mapToInt(Integer::intValue).toArray();
                sent.add(send(to, s, 4 * PHASE, Chunks.encode(buf, 0, buf.length)));
            } else {
                Chunks.copyInto(buf, 0, take(s, 4 * PHASE, leader, buf.length, "all-reduce"));
            }
        }
    }

    /**
     * A ring reduce-scatter over {@code buf[from, to)} among the ranks of {@code ring}: after it
     * the rank at position {@code p} holds the sum of chunk {@code (p + 1) mod n}.
     */
    void reduceScatter(List<Integer> ring, float[] buf, int from, int to, long s,
            int base, List<Transport.Delivery> sent) {
        reduceScatter(ring, buf, bounds(from, to, ring.size()), s, base, sent);
    }

    /** As above over chunks {@code [at[c], at[c + 1])}: an element's sum order is its chunk's. */
    void reduceScatter(List<Integer> ring, float[] buf, int[] at, long s, int base,
            List<Transport.Delivery> sent) {
        int n = ring.size();
        int pos = ring.indexOf(rank);
        int[] right = {ring.get((pos + 1) % n)};
        int left = ring.get((pos + n - 1) % n);
        for (int step = 0; step < n - 1; step++) {
            int out = Math.floorMod(pos - step, n);
            int in = Math.floorMod(pos - step - 1, n);
            sent.add(send(right, s, base + step, Chunks.encode(buf, at[out], at[out + 1])));
            Chunks.addInto(buf, at[in], take(s, base + step, left, at[in + 1] - at[in],
                    "all-reduce"));
        }
    }

    /** The ring all-gather that follows {@link #reduceScatter} on the same ring and range. */
    void allGather(List<Integer> ring, float[] buf, int from, int to, long s, int base,
            List<Transport.Delivery> sent) {
        allGather(ring, buf, bounds(from, to, ring.size()), s, base, sent);
    }

    /** The ring all-gather over chunks given by their bounds, as {@link #reduceScatter}. */
    void allGather(List<Integer> ring, float[] buf, int[] at, long s, int base,
            List<Transport.Delivery> sent) {
        int n = ring.size();
        int pos = ring.indexOf(rank);
        int[] right = {ring.get((pos + 1) % n)};
        int left = ring.get((pos + n - 1) % n);
        for (int step = 0; step < n - 1; step++) {
            int out = Math.floorMod(pos + 1 - step, n);
            int in = Math.floorMod(pos - step, n);
            sent.add(send(right, s, base + step, Chunks.encode(buf, at[out], at[out + 1])));
            Chunks.copyInto(buf, at[in], take(s, base + step, left, at[in + 1] - at[in],
                    "all-reduce"));
        }
    }

    /** The bounds of {@code [from, to)} split in {@code n} chunks, {@code n + 1} of them. */
    static int[] bounds(int from, int to, int n) {
        int[] at = new int[n + 1];
        for (int c = 0; c <= n; c++) {
            at[c] = lo(from, to, n, c);
        }
        return at;
    }

    /** Returns rank 0's {@code data} on every rank; other ranks' {@code data} is ignored. */
    synchronized float[] broadcast(float[] data) {
        return broadcast(java.util.stream.IntStream.range(0, size).boxed().toList(), data,
                "broadcast");
    }

    /**
     * Sums {@code data} over the ranks of this rank's node only (a ring inside the node): the
     * per-node aggregation of asynchronous training. Every rank must call the node collectives
     * as often as every other rank does, so that the sequence numbers stay aligned.
     */
    synchronized float[] nodeSum(float[] data) {
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        float[] buf = data.clone();
        List<Transport.Delivery> sent = new ArrayList<>();
        List<Integer> local = topology.local(rank);
        if (local.size() > 1) {
            reduceScatter(local, buf, 0, buf.length, s, 0, sent);
            allGather(local, buf, 0, buf.length, s, PHASE, sent);
        }
        return end(buf, ReduceOp.SUM, sent, t0);
    }

    /** Returns the node leader's {@code data} on every rank of this rank's node. */
    synchronized float[] nodeBroadcast(float[] data) {
        return broadcast(topology.local(rank), data, "node broadcast");
    }

    /** This rank's node among the group's nodes: {index, nodes, whether it leads (1 or 0)}. */
    int[] nodePlace() {
        List<List<Integer>> nodes = topology.byNode();
        List<Integer> local = topology.local(rank);
        return new int[] {nodes.indexOf(local), nodes.size(), local.get(0) == rank ? 1 : 0};
    }

    /** The first of {@code ranks} sends its {@code data} to the others. */
    private float[] broadcast(List<Integer> ranks, float[] data, String what) {
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        int root = ranks.get(0);
        float[] result;
        if (ranks.size() == 1) {
            result = data.clone();
        } else if (rank == root) {
            int[] to = ranks.subList(1, ranks.size()).stream().mapToInt(Integer::intValue)
                    .toArray();
            send(to, s, 0, Chunks.encode(data, 0, data.length)).await(timeout);
            result = data.clone();
        } else {
            result = Chunks.decode(take(s, 0, root, -1, what));
        }
        finish(t0);
        return result;
    }

    Transport.Delivery send(int[] to, long s, int step, byte[] payload) {
        messagesSent.addAndGet(to.length);
        bytesSent.addAndGet((long) payload.length * to.length);
        for (int t : to) {
            if (!topology.sameNode(rank, t)) {
                interNodeBytesSent.addAndGet(payload.length);
            }
        }
        return transport.send(to, s, step, payload);
    }

    /** Waits for a peer's chunk; {@code floats} is its expected length, or -1 for any. */
    byte[] take(long s, int step, int from, int floats, String what) {
        byte[] payload;
        try {
            payload = mailbox.take(s, step, from, timeout);
        } catch (TimeoutException e) {
            throw new CollectiveException(
                    "Rank " + rank + " got no data from rank " + from + " within " + within()
                            + " (" + what + " #" + s + ", step " + step + ").",
                    "Every rank must call the same collectives in order; if a rank died, close "
                            + "the group and open a new one.");
        }
        if (floats >= 0 && payload.length != floats * Float.BYTES) {
            throw new CollectiveException(
                    "Rank " + rank + " got " + payload.length / Float.BYTES + " floats from rank "
                            + from + " where it expected " + floats + " (" + what + " #" + s
                            + "): the ranks passed arrays of different lengths.",
                    "Pass arrays of the same length on every rank.");
        }
        return payload;
    }

    private String within() {
        return timeout.toMillis() < 1000 ? timeout.toMillis() + " ms"
                : timeout.toSeconds() + " s";
    }

    private void finish(long t0) {
        operations.incrementAndGet();
        nanos.addAndGet(System.nanoTime() - t0);
    }

    /** The first index of chunk {@code c} when {@code [from, to)} splits in {@code n}. */
    static int lo(int from, int to, int n, int c) {
        return from + Chunks.start(to - from, n, c);
    }

    private static int lo(float[] buf, int n, int c) {
        return lo(0, buf.length, n, c);
    }

    CollectiveStats stats() {
        return new CollectiveStats(operations.get(), messagesSent.get(), bytesSent.get(),
                interNodeBytesSent.get(), bytesReceived.get(), nanos.get());
    }
}
