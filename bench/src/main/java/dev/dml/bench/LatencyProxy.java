package dev.dml.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A slow server for P6S3: a TCP relay on loopback in front of a real one that holds each burst
 * a client sends (an HTTP request) for a fixed time before passing it on, as a store far away
 * answers a request a round trip later. Replies pass at once.
 */
final class LatencyProxy implements AutoCloseable {

    /** Connections relayed at once; the readers here open a few each. */
    private static final int MAX_CONNECTIONS = 64;
    /** A connection idle this long is dropped, so no pump waits forever. */
    private static final int IDLE_MILLIS = 60_000;

    private final ServerSocket server;
    private final List<Socket> open = new ArrayList<>();
    private final Thread acceptor;

    /**
     * Starts relaying to a server.
     *
     * @param target the real server's port on loopback
     * @param delayMillis how long each request is held
     */
    LatencyProxy(int target, long delayMillis) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> accept(target, delayMillis), "latency-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the relay's URL, {@code http://127.0.0.1:PORT} */
    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    private void accept(int target, long delayMillis) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                synchronized (open) {
                    open.removeIf(Socket::isClosed);
                    if (open.size() >= 2 * MAX_CONNECTIONS) {
                        closeQuietly(client); // a bounded relay: the client retries
                        continue;
                    }
                }
                client.setSoTimeout(IDLE_MILLIS);
                Socket upstream = new Socket();
                upstream.setSoTimeout(IDLE_MILLIS);
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target),
                        5_000);
                synchronized (open) {
                    open.add(client);
                    open.add(upstream);
                }
                pump(client, upstream, delayMillis);
                pump(upstream, client, 0);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Copies one direction in a thread of its own, holding each read burst for the delay. */
    private static void pump(Socket from, Socket to, long delayMillis) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[1 << 16];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    if (delayMillis > 0) {
                        Thread.sleep(delayMillis);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // one side closed: the other follows below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "latency-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (open) {
            open.forEach(LatencyProxy::closeQuietly);
            open.clear();
        }
    }
}
