package dev.dml.ray.ps;

import dev.dml.DmlException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A parameter server's direct TCP endpoint: each client opens one connection, presents the
 * group's token, then sends requests one at a time and reads each reply, with no Ray task or
 * object store between them. A request is a push ({@link #PUSH}: client, clock, the change's
 * float32 bytes) or a pull ({@link #PULL}); the reply is the shard's bytes, or a negative length
 * and the server's error line. One thread per connection: clients are served concurrently, as
 * the staleness gate needs.
 */
final class TcpShardServer implements AutoCloseable {

    static final int MAGIC = 0x444d4c50; // "DMLP"
    static final byte PUSH = 1;
    static final byte PULL = 2;

    private final ShardState state;
    private final long token;
    private final ServerSocket socket;
    private volatile boolean closed;

    TcpShardServer(ShardState state, long token, String host) throws IOException {
        this.state = state;
        this.token = token;
        this.socket = new ServerSocket();
        socket.bind(new InetSocketAddress(host, 0), 64);
        Thread t = new Thread(this::acceptLoop, "dml-ps-accept-" + socket.getLocalPort());
        t.setDaemon(true);
        t.start();
    }

    /** Where clients connect: {@code host:port}. */
    String address() {
        return socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = socket.accept();
                s.setTcpNoDelay(true);
                Thread t = new Thread(() -> serve(s), "dml-ps-serve-" + socket.getLocalPort());
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s; DataInputStream in = new DataInputStream(new BufferedInputStream(
                s.getInputStream(), 1 << 16)); DataOutputStream out = new DataOutputStream(
                        new BufferedOutputStream(s.getOutputStream(), 1 << 16))) {
            if (in.readInt() != MAGIC || in.readLong() != token) {
                return; // a stray client, or one of an earlier job
            }
            while (!closed) {
                byte op = in.readByte();
                byte[] reply;
                try {
                    reply = FloatBytes.of(op == PUSH ? push(in) : state.pull());
                } catch (DmlException e) {
                    byte[] why = e.whatTemplate().getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    out.writeInt(-why.length);
                    out.write(why);
                    out.flush();
                    continue;
                }
                out.writeInt(reply.length);
                out.write(reply);
                out.flush();
            }
        } catch (IOException e) {
            // the client closed its connection, or died: nothing to answer
        }
    }

    private float[] push(DataInputStream in) throws IOException {
        int client = in.readInt();
        long clock = in.readLong();
        byte[] delta = new byte[in.readInt()];
        in.readFully(delta);
        return state.pushPull(client, clock, FloatBytes.floats(delta));
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
