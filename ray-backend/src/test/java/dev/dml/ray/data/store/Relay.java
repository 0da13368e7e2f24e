package dev.dml.ray.data.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A store that is down for a while: a TCP relay on loopback to the real server that resets
 * its first {@code failFirst} connections once their request is in (a client reads "connection
 * reset", as from a server going down), then relays. Counted rather than timed, so a slow
 * machine cannot make the outage end before the client's first try. Its threads end with
 * {@link #close}; each connection is dropped after 30 s idle.
 */
final class Relay implements AutoCloseable {

    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private final ServerSocket server;
    private volatile boolean closed;

    Relay(int target, int failFirst) throws IOException {
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> run(target, failFirst), "store-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return its URL, {@code http://127.0.0.1:PORT} */
    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void run(int target, int failFirst) {
        try {
            for (int failed = 0; failed < failFirst; failed++) {
                Socket in = server.accept();
                in.setSoTimeout(30_000);
                readRequestHead(in);
                in.setSoLinger(true, 0); // a reset, not an orderly close
                in.close();
            }
            while (!closed) {
                Socket in = server.accept();
                Socket out = new Socket();
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target),
                        5_000);
                for (Socket s : List.of(in, out)) {
                    s.setSoTimeout(30_000);
                    open.add(s);
                }
                copy(in, out);
                copy(out, in);
            }
        } catch (IOException e) {
            // closed
        }
    }

    /**
     * Reads up to the end of a request's head, so that the reset comes after the request went
     * out, as when a server goes down mid-request. A reset before that races the client's
     * write, and the JDK's HTTP client then reconnects on its own, unseen by dml's retries.
     */
    private static void readRequestHead(Socket in) throws IOException {
        InputStream i = in.getInputStream();
        byte[] end = {'\r', '\n', '\r', '\n'};
        int matched = 0;
        while (matched < end.length) {
            int b = i.read();
            if (b < 0) {
                return;
            }
            matched = b == end[matched] ? matched + 1 : b == end[0] ? 1 : 0;
        }
    }

    private static void copy(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
                i.transferTo(o);
            } catch (IOException e) {
                // either side closed
            }
        }, "store-relay-copy");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        closed = true;
        server.close();
        for (Socket s : open) {
            s.close();
        }
        acceptor.join(5_000);
    }
}
