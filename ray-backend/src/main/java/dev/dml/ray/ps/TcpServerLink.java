package dev.dml.ray.ps;

import dev.dml.DmlException;
import dev.dml.ray.net.Frames;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A {@link ServerLink} over direct TCP connections, one per server ({@link TcpPartitionServer}):
 * a push writes every server's request, then reads every reply, so that the servers work at
 * once. Opened lazily in the worker; a connection that fails, or a server that does not reply
 * within the reply wait (it vanished after taking the request), fails the step with one line
 * and closes every connection, so that the next use starts in step.
 */
final class TcpServerLink implements ServerLink {

    private final List<String> addresses;
    private final long token;
    private final ServerPartitions partitions;
    private final int client;
    private final Duration replyWait;
    private Socket[] sockets;
    private DataInputStream[] in;
    private DataOutputStream[] out;
    private long bytes;

    /** How long a reply may take by default: longer than any staleness gate waits. */
    static final Duration DEFAULT_REPLY_WAIT = Duration.ofMinutes(5);

    TcpServerLink(List<String> addresses, long token, ServerPartitions partitions, int client) {
        this(addresses, token, partitions, client, DEFAULT_REPLY_WAIT);
    }

    /**
     * A link, connected at its first use.
     *
     * @param replyWait how long a server may take to answer, gate waits included
     */
    TcpServerLink(List<String> addresses, long token, ServerPartitions partitions, int client,
            Duration replyWait) {
        this.addresses = List.copyOf(addresses);
        this.token = token;
        this.partitions = partitions;
        this.client = client;
        this.replyWait = replyWait;
    }

    @Override
    public float[] pushPull(long clock, float[] delta) {
        connect();
        int s = 0;
        try {
            for (; s < out.length; s++) {
                byte[] b = FloatBytes.of(partitions.gather(delta, s));
                out[s].writeByte(TcpPartitionServer.PUSH);
                out[s].writeInt(client);
                out[s].writeLong(clock);
                out[s].writeInt(b.length);
                out[s].write(b);
                out[s].flush();
                bytes += b.length;
            }
            return replies();
        } catch (IOException e) {
            throw lost(s, e);
        }
    }

    @Override
    public float[] pull() {
        connect();
        int s = 0;
        try {
            for (; s < out.length; s++) {
                out[s].writeByte(TcpPartitionServer.PULL);
                out[s].flush();
            }
            return replies();
        } catch (IOException e) {
            throw lost(s, e);
        }
    }

    @Override
    public long bytes() {
        return bytes;
    }

    /**
     * Reads every server's reply, also after one says it failed: a reply left unread would be
     * taken as the answer to this link's next request.
     */
    private float[] replies() {
        float[] flat = new float[partitions.total()];
        DmlException failed = null;
        for (int s = 0; s < in.length; s++) {
            int n;
            byte[] b;
            try {
                n = in[s].readInt();
                b = Frames.read(in[s], Frames.checkLength(n == Integer.MIN_VALUE ? n
                        : Math.abs(n), TcpPartitionServer.MAX_PUSH, "a reply"));
            } catch (IOException e) {
                throw lost(s, e);
            }
            if (n < 0) {
                failed = failed != null ? failed : new DmlException("Parameter server " + s
                        + " of " + in.length + ": " + new String(b, StandardCharsets.UTF_8),
                        "See the server's log.");
                continue;
            }
            bytes += n;
            partitions.scatter(FloatBytes.floats(b), s, flat);
        }
        if (failed != null) {
            throw failed;
        }
        return flat;
    }

    private void connect() {
        if (out != null) {
            return;
        }
        sockets = new Socket[addresses.size()];
        DataInputStream[] ins = new DataInputStream[addresses.size()];
        DataOutputStream[] outs = new DataOutputStream[addresses.size()];
        for (int s = 0; s < addresses.size(); s++) {
            String a = addresses.get(s);
            int colon = a.lastIndexOf(':');
            try {
                Socket socket = new Socket();
                sockets[s] = socket;
                socket.setTcpNoDelay(true);
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, replyWait.toMillis()));
                socket.connect(new InetSocketAddress(a.substring(0, colon),
                        Integer.parseInt(a.substring(colon + 1))), 5_000);
                ins[s] = new DataInputStream(new BufferedInputStream(socket.getInputStream(),
                        1 << 16));
                outs[s] = new DataOutputStream(new BufferedOutputStream(
                        socket.getOutputStream(), 1 << 16));
                outs[s].writeInt(TcpPartitionServer.MAGIC);
                outs[s].writeLong(token);
            } catch (IOException e) {
                throw lost(s, e);
            }
        }
        in = ins;
        out = outs;
    }

    /**
     * A connection broke, or a reply did not come: every connection is closed, and the link
     * starts over with fresh ones, in step, at its next use.
     */
    private DmlException lost(int s, IOException e) {
        close();
        String why = e instanceof SocketTimeoutException ? "no reply within "
                + (replyWait.toMillis() < 1000 ? replyWait.toMillis() + " ms"
                        : replyWait.toSeconds() + " s") : e.getMessage();
        return ServerFailure.lost(s, addresses.size(), " (" + DmlException.literal(why) + ")",
                e);
    }

    @Override
    public void close() {
        if (sockets != null) {
            for (Socket socket : sockets) {
                try {
                    if (socket != null) {
                        socket.close();
                    }
                } catch (IOException ignored) {
                    // the server is gone already
                }
            }
        }
        sockets = null;
        in = null;
        out = null;
    }
}
