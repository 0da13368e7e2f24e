package dev.dml.ray.collective;

import dev.dml.ray.net.Frames;
import dev.dml.ray.net.GuardedServer;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of one rank's direct links: a listening socket its peers connect to, and
 * one reader per peer that puts each frame into the rank's {@link Communicator}.
 *
 * <p>A rank opens its endpoint before it joins a group ({@link CollectiveWorker#listen}), so
 * every peer's port is known when the group forms. Each group has a random token: a connection
 * that does not present it within {@link #LIMITS}' pre-authentication time (a peer of an
 * earlier group, a stray client) is closed. Its hello also names the sender's rank, which must
 * be another member of the group and not one already connected: every chunk the connection
 * carries is filed under that rank, so it can never stand in for another rank's chunk. A length
 * no sender writes ends the connection and counts the peer as lost. A peer whose connection
 * ends while the group is open has died or lost its network: the rank's waits are ended at
 * once, instead of at the collective's timeout.
 */
final class TcpEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpEndpoint.class);

    /** The first bytes of every connection, so that a stray client is told apart. */
    static final int MAGIC = 0x444d4c31; // "DML1"

    /**
     * Peers and strays at once: a group's links plus room for strays, each given a few seconds
     * to present the token.
     */
    static final GuardedServer.Limits LIMITS = new GuardedServer.Limits(256,
            Duration.ofSeconds(10));

    /** The longest chunk a frame may claim: the largest Java array. */
    static final int MAX_CHUNK = Integer.MAX_VALUE - 64;

    /** How long a peer that connected early waits for this rank to join the group. */
    private static final Duration JOIN_WAIT = Duration.ofMinutes(5);

    /** What a hello proved: the sender's rank, and the stream its frames follow on. */
    private record Peer(int rank, DataInputStream in) {}

    private final byte[] token;
    private final long tokenValue;
    private final GuardedServer<Peer> server;
    private final CompletableFuture<Communicator> sink = new CompletableFuture<>();
    private final Map<Integer, Peer> connected = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * Opens a listening socket on a free port of one address: the node's address that the
     * cluster knows, so that an embedded head's workers listen on loopback only.
     *
     * @param host the address to listen on
     * @param token the group's token that connections must present
     */
    TcpEndpoint(String host, long token) throws IOException {
        this(host, token, LIMITS);
    }

    TcpEndpoint(String host, long token, GuardedServer.Limits limits) throws IOException {
        this.token = Frames.bytes(token);
        this.tokenValue = token;
        this.server = GuardedServer.open("dml-tcp", GuardedServer.bind(host), limits,
                this::hello, this::readLoop,
                e -> sink.thenAccept(c -> c.abort("its listening socket failed: " + e)));
    }

    /** The port peers connect to. */
    int port() {
        return server.port();
    }

    /** Where peers connect to: {@code host:port}. */
    String address() {
        return server.address();
    }

    /** The connections open now, peers' and strays'. */
    int openConnections() {
        return server.openConnections();
    }

    /**
     * Reads an {@link #address}.
     *
     * @return the socket address, or null for an empty string (a rank that could not listen)
     */
    static InetSocketAddress parse(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 ? null : new InetSocketAddress(hostPort.substring(0, colon),
                Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Where frames go from now on: the rank's communicator once it has joined. */
    void bind(Communicator communicator) {
        sink.complete(communicator);
    }

    /** {@code MAGIC, token, rank}: null, and the connection closed, for a stray. */
    private Peer hello(GuardedServer.Connection c) throws IOException {
        c.socket().setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(
                new BufferedInputStream(c.socket().getInputStream(), 1 << 16));
        boolean magic = in.readInt() == MAGIC;
        byte[] given = in.readNBytes(token.length);
        int rank = in.readInt();
        return magic && Frames.sameToken(given, token) ? new Peer(rank, in) : null;
    }

    private void readLoop(GuardedServer.Connection c, Peer peer) {
        Communicator comm = joined();
        if (comm == null) {
            return; // this rank closed, or never joined a group
        }
        if (!admit(peer, comm)) {
            LOG.warn("rank {} refused a connection from {} as rank {}: not another member of"
                    + " its group of {}, or one already connected", comm.rank(),
                    c.socket().getRemoteSocketAddress(), peer.rank(), comm.size());
            return;
        }
        int from = peer.rank();
        DataInputStream in = peer.in();
        ShmRing ring = null; // the sender's ring, opened at its first chunk through it
        try {
            while (true) {
                long seq = in.readLong();
                int step = in.readInt();
                int length = in.readInt();
                byte[] payload;
                if (length == TcpTransport.IN_SHARED_MEMORY) {
                    if (ring == null) {
                        ring = ShmRing.open(ShmRing.fileFor(tokenValue, from, comm.rank()));
                    }
                    length = Frames.checkLength(in.readInt(), TcpTransport.SHM_RING_BYTES,
                            "a shared-memory chunk");
                    payload = ring.read(in.readLong(), length);
                } else {
                    payload = Frames.read(in, Frames.checkLength(length, MAX_CHUNK, "a chunk"));
                }
                comm.deliver(from, seq, step, payload);
            }
        } catch (EOFException | SocketException e) {
            lost(from, "closed its connection");
        } catch (IOException | RuntimeException e) {
            lost(from, "broke its connection (" + e.getMessage() + ")");
        } finally {
            connected.remove(from, peer);
        }
    }

    /** The communicator, once this rank joined; null when it never does, or closes first. */
    private Communicator joined() {
        try {
            return sink.get(JOIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException | CancellationException e) {
            return null;
        }
    }

    /** Whether a hello's rank is another member of the group, not connected yet. */
    private boolean admit(Peer peer, Communicator comm) {
        int r = peer.rank();
        return r >= 0 && r < comm.size() && r != comm.rank()
                && connected.putIfAbsent(r, peer) == null;
    }

    private void lost(int from, String what) {
        if (!closed) {
            sink.thenAccept(c -> c.abort("rank " + from + " " + what));
        }
    }

    /** Stops listening and closes every accepted connection; the readers end quietly. */
    @Override
    public void close() {
        closed = true;
        sink.cancel(false);
        server.close();
    }
}
