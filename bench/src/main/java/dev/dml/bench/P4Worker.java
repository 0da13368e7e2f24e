package dev.dml.bench;

import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import java.util.Arrays;

/**
 * P4's actor: times, from inside the actor, a ring all-reduce of a float array with its peer and
 * a raw hand-off of the same number of bytes to its peer through Ray's object store. Its arrays
 * are allocated once and reused, so each timed call moves warm memory.
 */
public class P4Worker extends CollectiveWorker {

    private float[] floats;
    private byte[] bytes;

    /** Creates the worker; {@link dev.dml.ray.collective.ActorGroup} joins it to the group. */
    public P4Worker() {}

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
    public double timedHandOff(ActorHandle<P4Worker> peer, int n) {
        if (bytes == null || bytes.length != n) {
            bytes = new byte[n];
            Arrays.fill(bytes, (byte) (rank() + 1));
        }
        peer.task(P4Worker::take, new byte[1]).remote().get();
        long t0 = System.nanoTime();
        ObjectRef<byte[]> ref = Ray.put(bytes);
        int got = peer.task(P4Worker::take, ref).remote().get();
        double s = (System.nanoTime() - t0) / 1e9;
        if (got != n) {
            throw new IllegalStateException("The peer got " + got + " bytes, not " + n + ".");
        }
        return s;
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
