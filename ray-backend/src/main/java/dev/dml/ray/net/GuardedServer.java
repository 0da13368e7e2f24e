package dev.dml.ray.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening socket whose connections must prove they belong before they cost anything: at
 * most {@link Limits#maxConnections} are open at once, each on its own thread; one that has not
 * passed its {@link Greeting} within {@link Limits#preAuthTimeout} is closed; only then does its
 * {@link Session} run. A newcomer beyond the cap pushes out the oldest connection still being
 * greeted (a silent squatter), or is closed at once when every slot is taken by a proven peer.
 * A connection leaves the count when it ends, and {@link #close} closes every one.
 *
 * <pre>{@code
 * GuardedServer<Peer> server = GuardedServer.open("dml-ps", GuardedServer.bind(host), limits,
 *         c -> readHello(c.socket()), (c, peer) -> serve(peer));
 * }</pre>
 *
 * @param <P> what a greeting proved about a peer (its rank, its streams)
 */
public final class GuardedServer<P> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedServer.class);

    /**
     * What a server admits.
     *
     * @param maxConnections connections open at once, greeted or not
     * @param preAuthTimeout how long a connection may take to pass its greeting
     */
    public record Limits(int maxConnections, Duration preAuthTimeout) {
        /** Checks the values. */
        public Limits {
            if (maxConnections < 1 || preAuthTimeout.isNegative() || preAuthTimeout.isZero()) {
                throw new IllegalArgumentException("maxConnections " + maxConnections
                        + " and preAuthTimeout " + preAuthTimeout + " must be positive");
            }
        }
    }

    /**
     * Reads and checks a connection's first bytes, under the pre-authentication timeout.
     *
     * @param <P> what it proves
     */
    @FunctionalInterface
    public interface Greeting<P> {
        /**
         * Checks a new connection.
         *
         * @param c the connection
         * @return who it is, or null to refuse it (the reason already logged)
         * @throws IOException when it sent something malformed, or nothing in time
         */
        P greet(Connection c) throws IOException;
    }

    /**
     * Serves a connection that passed its greeting; the socket is closed when it returns,
     * unless it was {@link Connection#handOver handed over}.
     *
     * @param <P> what the greeting proved
     */
    @FunctionalInterface
    public interface Session<P> {
        /**
         * Serves until the peer is done.
         *
         * @param c the connection, with no read timeout any more
         * @param peer what the greeting proved
         * @throws IOException when the connection breaks
         */
        void serve(Connection c, P peer) throws IOException;
    }

    /** One accepted connection. */
    public static final class Connection {
        private final GuardedServer<?> server;
        private final Socket socket;
        private volatile boolean handedOver;

        private Connection(GuardedServer<?> server, Socket socket) {
            this.server = server;
            this.socket = socket;
        }

        /**
         * The socket, owned by the server until {@link #handOver}.
         *
         * @return the socket
         */
        public Socket socket() {
            return socket;
        }

        /** Takes the socket out of the server's hands: the caller closes it from now on. */
        public void handOver() {
            handedOver = true;
            server.forget(this);
        }
    }

    private final String name;
    private final ServerSocket server;
    private final Limits limits;
    private final Greeting<P> greeting;
    private final Session<P> session;
    private final Consumer<IOException> acceptFailed;
    private final Set<Connection> open = new HashSet<>();
    private final Deque<Connection> ungreeted = new ArrayDeque<>();
    private volatile boolean closed;

    private GuardedServer(String name, ServerSocket server, Limits limits, Greeting<P> greeting,
            Session<P> session, Consumer<IOException> acceptFailed) {
        this.name = name;
        this.server = server;
        this.limits = limits;
        this.greeting = greeting;
        this.session = session;
        this.acceptFailed = acceptFailed;
    }

    /**
     * Binds a listening socket on a free port of one address.
     *
     * @param host the address
     * @return the bound socket
     * @throws IOException when it cannot be bound
     */
    public static ServerSocket bind(String host) throws IOException {
        ServerSocket s = new ServerSocket();
        try {
            s.bind(new InetSocketAddress(host, 0), 64);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /**
     * Starts accepting on a bound socket, which the server owns from now on.
     *
     * @param name names the threads, {@code name-port}
     * @param server the bound socket
     * @param limits the caps
     * @param greeting checks each connection first
     * @param session serves each connection that passed
     * @param acceptFailed told when the listening socket fails before {@link #close}
     * @param <P> what a greeting proves
     * @return the running server
     */
    public static <P> GuardedServer<P> open(String name, ServerSocket server, Limits limits,
            Greeting<P> greeting, Session<P> session, Consumer<IOException> acceptFailed) {
        GuardedServer<P> s = new GuardedServer<>(name, server, limits, greeting, session,
                acceptFailed);
        Thread t = new Thread(s::acceptLoop, name + "-accept-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
        return s;
    }

    /**
     * The port peers connect to.
     *
     * @return the port
     */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Where peers connect to.
     *
     * @return {@code host:port}
     */
    public String address() {
        return server.getInetAddress().getHostAddress() + ":" + port();
    }

    /**
     * The connections open now, greeted or not.
     *
     * @return how many
     */
    public synchronized int openConnections() {
        return open.size();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    acceptFailed.accept(e);
                }
                return;
            }
            Connection c = new Connection(this, s);
            if (!admit(c)) {
                quietlyClose(s);
                continue;
            }
            Thread t = new Thread(() -> run(c), name + "-" + port());
            t.setDaemon(true);
            t.start();
        }
    }

    /** Counts a newcomer in, pushing out the oldest ungreeted one at the cap. */
    private boolean admit(Connection c) {
        Connection evicted = null;
        synchronized (this) {
            if (closed) {
                return false;
            }
            if (open.size() >= limits.maxConnections()) {
                evicted = ungreeted.pollFirst();
                if (evicted == null) {
                    LOG.warn("{} on port {} refused a connection from {}: all {} slots serve"
                            + " peers", name, port(), c.socket.getRemoteSocketAddress(),
                            limits.maxConnections());
                    return false;
                }
                open.remove(evicted);
            }
            open.add(c);
            ungreeted.addLast(c);
        }
        if (evicted != null) {
            LOG.warn("{} on port {} closed a connection from {} that had not proved itself,"
                    + " to make room", name, port(), evicted.socket.getRemoteSocketAddress());
            quietlyClose(evicted.socket);
        }
        return true;
    }

    private void run(Connection c) {
        try {
            P peer;
            try {
                c.socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE,
                        limits.preAuthTimeout().toMillis()));
                peer = greeting.greet(c);
            } catch (SocketTimeoutException e) {
                LOG.warn("{} on port {} closed a connection from {}: no greeting within {} ms",
                        name, port(), c.socket.getRemoteSocketAddress(),
                        limits.preAuthTimeout().toMillis());
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("{} on port {} refused a connection from {}: {}", name, port(),
                            c.socket.getRemoteSocketAddress(), e.getMessage());
                }
                return;
            }
            if (peer == null || !greeted(c)) {
                return;
            }
            c.socket.setSoTimeout(0);
            session.serve(c, peer);
        } catch (IOException e) {
            // the session ends when its connection breaks; it reports what that means
        } finally {
            if (!c.handedOver) {
                quietlyClose(c.socket);
                forget(c);
            }
        }
    }

    /** Moves a connection from greeting to serving; false when it was pushed out meanwhile. */
    private synchronized boolean greeted(Connection c) {
        return ungreeted.remove(c) && !closed;
    }

    private synchronized void forget(Connection c) {
        open.remove(c);
        ungreeted.remove(c);
    }

    /** Stops listening and closes every connection it still owns; their threads end. */
    @Override
    public void close() {
        List<Connection> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(open);
            open.clear();
            ungreeted.clear();
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a listening socket only fails if it is already closed
        }
        for (Connection c : all) {
            quietlyClose(c.socket);
        }
    }

    private static void quietlyClose(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // the peer sees the close
        }
    }
}
