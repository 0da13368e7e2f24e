package dev.dml.ray.ps;

import dev.dml.DmlException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A {@link ServerLink} over direct TCP connections, one per server ({@link TcpShardServer}):
 * a push writes every server's request, then reads every reply, so that the servers work at
 * once. Opened lazily in the worker; a connection that fails fails the step with one line.
 */
final class TcpServerLink implements ServerLink {

    private final List<String> addresses;
    private final long token;
    private final ServerShards shards;
    private final int client;
    private DataInputStream[] in;
    private DataOutputStream[] out;
    private long bytes;

    TcpServerLink(List<String> addresses, long token, ServerShards shards, int client) {
        this.addresses = List.copyOf(addresses);
        this.token = token;
        this.shards = shards;
        this.client = client;
    }

    @Override
    public float[] pushPull(long clock, float[] delta) {
        connect();
        int s = 0;
        try {
            for (; s < out.length; s++) {
                byte[] b = FloatBytes.of(shards.gather(delta, s));
                out[s].writeByte(TcpShardServer.PUSH);
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
                out[s].writeByte(TcpShardServer.PULL);
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
    private float[] replies() throws IOException {
        float[] flat = new float[shards.total()];
        DmlException failed = null;
        for (int s = 0; s < in.length; s++) {
            int n = in[s].readInt();
            byte[] b = new byte[Math.abs(n)];
            in[s].readFully(b);
            if (n < 0) {
                failed = failed != null ? failed : new DmlException("Parameter server " + s
                        + " of " + in.length + ": " + new String(b, StandardCharsets.UTF_8),
                        "See the server's log.");
                continue;
            }
            bytes += n;
            shards.scatter(FloatBytes.floats(b), s, flat);
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
        DataInputStream[] ins = new DataInputStream[addresses.size()];
        DataOutputStream[] outs = new DataOutputStream[addresses.size()];
        for (int s = 0; s < addresses.size(); s++) {
            String a = addresses.get(s);
            int colon = a.lastIndexOf(':');
            try {
                Socket socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(a.substring(0, colon),
                        Integer.parseInt(a.substring(colon + 1))), 5_000);
                ins[s] = new DataInputStream(new BufferedInputStream(socket.getInputStream(),
                        1 << 16));
                outs[s] = new DataOutputStream(new BufferedOutputStream(
                        socket.getOutputStream(), 1 << 16));
                outs[s].writeInt(TcpShardServer.MAGIC);
                outs[s].writeLong(token);
            } catch (IOException e) {
                throw lost(s, e);
            }
        }
        in = ins;
        out = outs;
    }

    /** A connection broke: the link starts over with fresh ones, in step, at its next use. */
    private DmlException lost(int s, IOException e) {
        close();
        in = null;
        out = null;
        return ServerFailure.lost(s, addresses.size(), " (" + DmlException.literal(
                e.getMessage()) + ")", e);
    }

    @Override
    public void close() {
        if (out != null) {
            for (DataOutputStream o : out) {
                try {
                    o.close();
                } catch (IOException ignored) {
                    // the server is gone already
                }
            }
        }
    }
}
