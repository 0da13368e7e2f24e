package dev.dml.ray.collective;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;

/**
 * The receiving side of one rank's direct links: a listening socket its peers connect to, and
 * one reader thread per peer that puts each frame into the rank's {@link Communicator}.
 *
 * <p>A rank opens its endpoint before it joins a group ({@link CollectiveWorker#listen}), so
 * every peer's port is known when the group forms. Each group has a random token: a connection
 * that does not present it (a peer of an earlier group, a stray client) is closed at once. A
 * peer whose connection ends while the group is open has died or lost its network: the rank's
 * waits are ended at once, instead of at the collective's timeout.
 */
final class TcpEndpoint implements AutoCloseable {

    /** The first bytes of every connection, so that a stray client is told apart. */
    static final int MAGIC = 0x444d4c31; // "DML1"

    private final long token;
    private final ServerSocket server;
    private final CompletableFuture<Communicator> sink = new CompletableFuture<>();
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Opens a listening socket on a free port of one address: the node's address that the
     * cluster knows, so that an embedded head's workers listen on loopback only.
     *
     * @param host the address to listen on
     * @param token the group's token that connections must present
     */
    TcpEndpoint(String host, long token) throws IOException {
        this.token = token;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(host, 0), 64);
        Thread t = new Thread(this::acceptLoop, "dml-tcp-accept-" + server.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** The port peers connect to. */
    int port() {
        return server.getLocalPort();
    }

    /** Where peers connect to: {@code host:port}. */
    String address() {
        return server.getInetAddress().getHostAddress() + ":" + port();
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

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                accepted.add(s);
                Thread t = new Thread(() -> readLoop(s), "dml-tcp-read-" + port());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    sink.thenAccept(c -> c.abort("its listening socket failed: " + e));
                }
                return;
            }
        }
    }

    private void readLoop(Socket socket) {
        int from = -1;
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(
                    new BufferedInputStream(socket.getInputStream(), 1 << 16));
            if (in.readInt() != MAGIC || in.readLong() != token) {
                return; // not a peer of this group
            }
            from = in.readInt();
            Communicator comm = sink.get();
            ShmRing ring = null; // the sender's ring, opened at its first chunk through it
            while (true) {
                long seq = in.readLong();
                int step = in.readInt();
                int length = in.readInt();
                byte[] payload;
                if (length == TcpTransport.IN_SHARED_MEMORY) {
                    if (ring == null) {
                        ring = ShmRing.open(ShmRing.fileFor(token, from, comm.rank()));
                    }
                    length = in.readInt();
                    payload = ring.read(in.readLong(), length);
                } else {
                    payload = new byte[length];
                    in.readFully(payload);
                }
                comm.deliver(seq, step, payload);
            }
        } catch (EOFException | SocketException e) {
            lost(from, "closed its connection");
        } catch (IOException e) {
            lost(from, "broke its connection (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private void lost(int from, String what) {
        if (!closed && from >= 0) {
            sink.thenAccept(c -> c.abort("rank " + from + " " + what));
        }
    }

    /** Stops listening and closes every accepted connection; the readers end quietly. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a listening socket only fails if it is already closed
        }
        for (Socket s : accepted) {
            try {
                s.close();
            } catch (IOException ignored) {
                // the reader sees the close and ends
            }
        }
    }
}
