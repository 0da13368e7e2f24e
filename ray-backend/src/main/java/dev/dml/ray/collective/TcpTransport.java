package dev.dml.ray.collective;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends chunks over direct TCP connections, one per peer, opened on first use: a chunk costs a
 * write, not a Ray task and an object-store round trip. A peer it cannot connect to within the
 * connect wait is reached through the {@code fallback} (Ray's object store) instead, and {@link
 * #describe} says so, so that the choice shows in the job's metrics.
 *
 * <p>Frames are {@code seq, step, length, bytes}; the peer's {@link TcpEndpoint} reads them in
 * order. A write that fails means the peer is gone: the send fails at once. To a peer on the
 * same node, a chunk of {@value #SHM_MIN_BYTES} bytes or more goes through a {@link ShmRing}
 * instead, when it has room, and the frame says only where: {@code seq, step, }{@value
 * #IN_SHARED_MEMORY}{@code , length, position}. A peer on the node whose ring cannot be had
 * ({@code /dev/shm} too small or full, its folder not private) gets everything over the socket,
 * and {@link #describe} says so too.
 */
final class TcpTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(TcpTransport.class);
    private static final Delivery DELIVERED = timeout -> { };

    /** The length field of a frame whose bytes wait in the link's shared-memory ring. */
    static final int IN_SHARED_MEMORY = -1;

    /** Smaller chunks go inline: a socket write costs less than the ring's bookkeeping. */
    static final int SHM_MIN_BYTES = 64 << 10;

    /** The largest ring of a link to a peer on the node: two chunks of a 50 MB all-reduce. */
    static final int SHM_RING_BYTES = 32 << 20;
    /** The smallest ring: a small model's chunks need little, and a ring's pages are all held. */
    static final int SHM_RING_MIN_BYTES = 1 << 20;

    /**
     * The size of a link's ring, from the first chunk it carries: room for four such chunks, so
     * two in flight and larger ones later fit, within {@link #SHM_RING_MIN_BYTES} and {@link
     * #SHM_RING_BYTES}. A ring is claimed whole in {@code /dev/shm} (so a full tmpfs shows at
     * once, not as a SIGBUS later), and a small model's 32 MB rings were most of a 2 GiB Binder
     * session's shared memory; a chunk larger than its ring goes through the socket.
     */
    static int ringBytes(int firstChunk) {
        return (int) Math.min(SHM_RING_BYTES, Math.max(SHM_RING_MIN_BYTES, 4L * firstChunk));
    }

    private final int rank;
    private final long token;
    private final List<InetSocketAddress> peers;
    private final Transport fallback;
    private final Duration connectWait;
    private final IntPredicate sameNode;
    private final AtomicLong sharedMemoryBytes = new AtomicLong();
    private final Map<Integer, Link> links = new ConcurrentHashMap<>();
    private final Map<Integer, String> fellBack = new ConcurrentHashMap<>();
    /** Peers on this node that get no ring, with why. */
    private final Map<Integer, String> socketOnly = new ConcurrentHashMap<>();
    private int ringsAllowed;

    /**
     * Creates the transport; it connects on first use.
     *
     * @param rank this rank
     * @param token the group's token, presented to each peer's endpoint
     * @param peers each rank's endpoint, by rank
     * @param fallback how to reach a peer that cannot be connected to
     * @param connectWait how long to try connecting before falling back
     * @param sameNode which peers share this rank's node, and so can share memory with it
     */
    TcpTransport(int rank, long token, List<InetSocketAddress> peers, Transport fallback,
            Duration connectWait, IntPredicate sameNode) {
        this.rank = rank;
        this.token = token;
        this.peers = new ArrayList<>(peers); // may hold nulls: ranks that could not listen
        this.fallback = fallback;
        this.connectWait = connectWait;
        // no /dev/shm (not Linux): every link is a socket, as before rings
        this.sameNode = Files.isDirectory(RingFolder.SHARED_MEMORY) ? sameNode : peer -> false;
    }

    /** The bytes sent through shared memory so far, not over the sockets. */
    long sharedMemoryBytes() {
        return sharedMemoryBytes.get();
    }

    @Override
    public Delivery send(int[] to, long seq, int step, byte[] payload) {
        List<Integer> viaFallback = new ArrayList<>();
        for (int r : to) {
            Link link = link(r);
            if (link == null) {
                viaFallback.add(r);
            } else {
                link.write(seq, step, payload);
            }
        }
        if (viaFallback.isEmpty()) {
            return DELIVERED;
        }
        return fallback.send(viaFallback.stream().mapToInt(Integer::intValue).toArray(), seq,
                step, payload);
    }

    /**
     * Opens the links to every peer now, so that {@link #describe} is final once the group
     * has formed; the peers listen already.
     */
    void connectAll() {
        for (int r = 0; r < peers.size(); r++) {
            if (r != rank) {
                link(r);
            }
        }
    }

    /** The link to a peer, connecting on first use; null once it fell back. */
    private Link link(int peer) {
        Link l = links.get(peer);
        if (l != null || fellBack.containsKey(peer)) {
            return l;
        }
        synchronized (this) {
            l = links.get(peer);
            if (l == null && !fellBack.containsKey(peer)) {
                try {
                    l = connect(peer);
                    links.put(peer, l);
                } catch (IOException e) {
                    if (fallback == null) {
                        throw new CollectiveException("Rank " + rank + " could not connect to"
                                + " rank " + peer + " at " + peers.get(peer) + ": " + e + ".",
                                "Check that the nodes can reach each other on any TCP port.",
                                e);
                    }
                    fellBack.put(peer, e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
            return l;
        }
    }

    private Link connect(int peer) throws IOException {
        if (peers.get(peer) == null) {
            throw new IOException("rank " + peer + " could not open a listening socket");
        }
        long deadline = System.nanoTime() + connectWait.toNanos();
        while (true) {
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                s.connect(peers.get(peer), (int) Math.max(1, connectWait.toMillis()));
                return new Link(peer, s);
            } catch (IOException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(50);
            }
        }
    }

    /**
     * Says how this rank reaches its peers: {@code tcp}, {@code tcp; ray for rank 2
     * (ConnectException: ...)} where some link fell back, and {@code ...; no shared memory with
     * rank 1 (...)} where a peer on this node gets no ring.
     */
    @Override
    public String describe() {
        if (fellBack.isEmpty() && socketOnly.isEmpty()) {
            return "tcp";
        }
        StringBuilder sb = new StringBuilder(links.isEmpty() ? "ray" : "tcp");
        if (!fellBack.isEmpty()) {
            sb.append("; ray");
            fellBack.forEach((peer, why) -> sb.append(" for rank ").append(peer).append(" (")
                    .append(why).append(")"));
        }
        socketOnly.forEach((peer, why) -> sb.append("; no shared memory with rank ")
                .append(peer).append(" (").append(why).append(")"));
        return sb.toString();
    }

    /**
     * Whether a ring to a peer on this node may be made: the ring folder is private and has
     * room for it besides the rings allowed to the peers before it. Called once per link.
     */
    private synchronized boolean ringAllowed(int peer) {
        if (!sameNode.test(peer)) {
            return false;
        }
        try {
            ShmRing.checkRoom(SHM_RING_BYTES, ringsAllowed + 1);
            ringsAllowed++;
            return true;
        } catch (IOException e) {
            noRing(peer, e);
            return false;
        }
    }

    private void noRing(int peer, IOException e) {
        socketOnly.put(peer, e.getMessage());
        LOG.warn("Rank {} sends to rank {}, on its node, over the socket only: {}", rank, peer,
                e.toString());
    }

    /** Closes the links, unmapping the rings this rank sends and receives through. */
    @Override
    public void close() {
        links.values().forEach(Link::close);
        links.clear();
        for (int from = 0; from < peers.size(); from++) {
            if (from != rank) {
                ShmRing.closeOpened(ShmRing.fileFor(token, from, rank));
            }
        }
        if (fallback != null) {
            fallback.close();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One connection to one peer; writes are whole frames, one at a time. */
    private final class Link {

        private final int peer;
        private final Socket socket;
        private final DataOutputStream out;
        private ShmRing ring;
        /** Whether a ring may still be made: a peer on this node, and room for it. */
        private boolean ringToMake;

        Link(int peer, Socket socket) throws IOException {
            this.peer = peer;
            this.socket = socket;
            this.out = new DataOutputStream(
                    new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
            out.writeInt(TcpEndpoint.MAGIC);
            out.writeLong(token);
            out.writeInt(rank);
            out.flush();
            this.ringToMake = ringAllowed(peer);
        }

        synchronized void write(long seq, int step, byte[] payload) {
            try {
                long at = payload.length >= SHM_MIN_BYTES && ring(payload.length) != null
                        ? ring.write(payload) : -1;
                out.writeLong(seq);
                out.writeInt(step);
                if (at >= 0) {
                    out.writeInt(IN_SHARED_MEMORY);
                    out.writeInt(payload.length);
                    out.writeLong(at);
                    sharedMemoryBytes.addAndGet(payload.length);
                } else {
                    out.writeInt(payload.length);
                    out.write(payload);
                }
                out.flush();
            } catch (IOException e) {
                throw new CollectiveException("Rank " + rank + " could not send a chunk to rank "
                        + peer + ": " + e.getMessage() + ".",
                        "Rank " + peer + " may have died; close the group and open a new one.",
                        e);
            }
        }

        /**
         * The ring to a peer on this node, made on first use; null where there is none, and
         * the socket carries everything, as across nodes.
         */
        private ShmRing ring(int firstChunk) {
            if (ringToMake) {
                ringToMake = false;
                try {
                    ring = ShmRing.create(ShmRing.fileFor(token, rank, peer),
                            ringBytes(firstChunk));
                } catch (IOException e) {
                    noRing(peer, e); // /dev/shm filled up since the check, say
                }
            }
            return ring;
        }

        synchronized void close() {
            ringToMake = false;
            if (ring != null) {
                ring.close();
                ring = null;
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // the peer's reader sees the close
            }
        }
    }
}
