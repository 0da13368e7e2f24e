package dev.dml.bench;

import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;

/**
 * P4's actor: times, from inside the actor, a ring all-reduce of a float array with its peer and
 * a raw hand-off of the same number of bytes to its peer through Ray's object store. Its arrays
 * are allocated once and reused, so each timed call moves warm memory.
 */
public class RingActor extends CollectiveWorker {

    private float[] floats;
    private byte[] bytes;
    private Socket raw;

    /** Creates the worker; {@link dev.dml.ray.collective.ActorGroup} joins it to the group. */
    public RingActor() {}

    /**
     * Runs a one-float all-reduce as a barrier, then times {@code allReduce(float[n], AVERAGE)}.
     *
     * @param n the number of floats
     * @return this rank's seconds for the timed all-reduce
     */
    public double timedAllReduce(int n) {
        if (floats == null || floats.length != n) {
            floats = new float[n];
            Arrays.fill(floats, rank() + 1);
        }
        allReduce(new float[] {1}, ReduceOp.SUM);
        long t0 = System.nanoTime();
        float[] mean = allReduce(floats, ReduceOp.AVERAGE);
        double s = (System.nanoTime() - t0) / 1e9;
        float expected = (worldSize() + 1) / 2f;
        if (mean.length != n || mean[0] != expected || mean[n - 1] != expected) {
            throw new IllegalStateException("The all-reduce returned a wrong mean.");
        }
        return s;
    }

    /**
     * Times the raw hand-off: {@code Ray.put(byte[n])}, then a call on the peer that takes the
     * {@code ObjectRef} (Ray resolves it to the bytes in the peer) and replies with the length.
     * An untimed round trip to the peer comes first, so that it is idle.
     *
     * @param peer the receiving actor
     * @param n the number of bytes
     * @return the seconds from the put to the reply
     */
    public double timedHandOff(ActorHandle<RingActor> peer, int n) {
        if (bytes == null || bytes.length != n) {
            bytes = new byte[n];
            Arrays.fill(bytes, (byte) (rank() + 1));
        }
        peer.task(RingActor::take, new byte[1]).remote().get();
        long t0 = System.nanoTime();
        ObjectRef<byte[]> ref = Ray.put(bytes);
        int got = peer.task(RingActor::take, ref).remote().get();
        double s = (System.nanoTime() - t0) / 1e9;
        if (got != n) {
            throw new IllegalStateException("The peer got " + got + " bytes, not " + n + ".");
        }
        return s;
    }

    /**
     * Opens a plain loopback socket that reads whole messages ({@code int n}, then n bytes)
     * and answers each with one byte: the receiving end of the raw TCP copy.
     *
     * @return the port
     * @throws IOException when no socket can be opened
     */
    public int rawListen() throws IOException {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (server; Socket s = server.accept()) {
                s.setTcpNoDelay(true);
                DataInputStream in = new DataInputStream(new BufferedInputStream(
                        s.getInputStream(), 1 << 16));
                OutputStream out = s.getOutputStream();
                byte[] buf = new byte[0];
                while (true) {
                    int n = in.readInt();
                    if (buf.length != n) {
                        buf = new byte[n];
                    }
                    in.readFully(buf);
                    out.write(1);
                    out.flush();
                }
            } catch (IOException end) {
                // the sender closed: the benchmark is over
            }
        }, "p4-raw-tcp");
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    /**
     * Times a raw TCP copy of {@code n} bytes to a peer's {@link #rawListen} socket, from the
     * first byte written to the peer's one-byte answer; the connection is opened once, untimed.
     *
     * @param port the peer's port on loopback
     * @param n the number of bytes
     * @return the seconds
     * @throws IOException when the copy fails
     */
    public double timedTcpCopy(int port, int n) throws IOException {
        if (raw == null) {
            raw = new Socket(InetAddress.getLoopbackAddress(), port);
            raw.setTcpNoDelay(true);
        }
        if (bytes == null || bytes.length != n) {
            bytes = new byte[n];
            Arrays.fill(bytes, (byte) (rank() + 1));
        }
        DataOutputStream out = new DataOutputStream(raw.getOutputStream());
        long t0 = System.nanoTime();
        out.writeInt(n);
        out.write(bytes);
        out.flush();
        if (raw.getInputStream().read() != 1) {
            throw new IOException("The peer did not answer the copy.");
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Takes the bytes a peer handed off.
     *
     * @param data the bytes
     * @return their length, as the reply
     */
    public int take(byte[] data) {
        return data.length;
    }

    /**
     * Returns an environment variable of this worker's process.
     *
     * @param name the variable
     * @return its value, or {@code null}
     */
    public String env(String name) {
        return System.getenv(name);
    }
}
