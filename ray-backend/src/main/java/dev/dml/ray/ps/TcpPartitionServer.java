package dev.dml.ray.ps;

import dev.dml.DmlException;
import dev.dml.ray.net.Frames;
import dev.dml.ray.net.GuardedServer;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A parameter server's direct TCP endpoint: each client opens one connection, presents the group's
 * token, then sends requests one at a time and reads each reply, with no Ray task or object store
 * between them. A request is a push ({@link #PUSH}: client, clock, the change's float32 bytes) or a
 * pull ({@link #PULL}); the reply is the partition's bytes, or a negative length and the server's
 * error line. One thread per connection: clients are served concurrently, as the staleness gate
 * needs. It listens through a {@link GuardedServer}: connections are capped, and one that does not
 * present the token in time is closed.
 */
final class TcpPartitionServer implements AutoCloseable {

    static final int MAGIC = 0x444d4c50; // "DMLP"
    static final byte PUSH = 1;
    static final byte PULL = 2;

    /** Every worker of a job, plus room for strays that are given a few seconds each. */
    static final GuardedServer.Limits LIMITS = new GuardedServer.Limits(1024,
            Duration.ofSeconds(10));

    /** The longest change a push may claim: the largest Java array. */
    static final int MAX_PUSH = Integer.MAX_VALUE - 64;

    private record Client(DataInputStream in, DataOutputStream out) {}

    private final PartitionState state;
    private final byte[] token;
    private final GuardedServer<Client> server;

    TcpPartitionServer(PartitionState state, long token, String host) throws IOException {
        this.state = state;
        this.token = Frames.bytes(token);
        this.server = GuardedServer.open("dml-ps", GuardedServer.bind(host), LIMITS,
                this::hello, this::serve, e -> { });
    }

    /** Where clients connect: {@code host:port}. */
    String address() {
        return server.address();
    }

    /** {@code MAGIC, token}: null, and the connection closed, for a stray or an earlier job. */
    private Client hello(GuardedServer.Connection c) throws IOException {
        c.socket().setTcpNoDelay(true);
        DataInputStream in = new DataInputStream(new BufferedInputStream(
                c.socket().getInputStream(), 1 << 16));
        boolean magic = in.readInt() == MAGIC;
        byte[] given = in.readNBytes(token.length);
        return magic && Frames.sameToken(given, token) ? new Client(in, new DataOutputStream(
                new BufferedOutputStream(c.socket().getOutputStream(), 1 << 16))) : null;
    }

    private void serve(GuardedServer.Connection c, Client client) throws IOException {
        DataInputStream in = client.in();
        DataOutputStream out = client.out();
        while (true) {
            byte op = in.readByte();
            if (op != PUSH && op != PULL) {
                throw new IOException("an unknown request " + op); // out of step: hang up
            }
            byte[] reply;
            try {
                reply = FloatBytes.of(op == PUSH ? push(in) : state.pull());
            } catch (DmlException e) {
                byte[] why = e.whatTemplate().getBytes(StandardCharsets.UTF_8);
                out.writeInt(-why.length);
                out.write(why);
                out.flush();
                continue;
            }
            out.writeInt(reply.length);
            out.write(reply);
            out.flush();
        }
    }

    private float[] push(DataInputStream in) throws IOException {
        int client = in.readInt();
        long clock = in.readLong();
        byte[] delta = Frames.read(in, Frames.checkLength(in.readInt(), MAX_PUSH, "a push"));
        return state.pushPull(client, clock, FloatBytes.floats(delta));
    }

    @Override
    public void close() {
        server.close();
    }
}
