package dev.dml.ray.collective;

import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A test worker that uses the collectives from its own methods, as a trainer does, and reports
 * where it runs.
 */
public class ProbeWorker extends CollectiveWorker {

    /** Creates a worker. */
    public ProbeWorker() {}

    /**
     * Returns this actor's JVM process id.
     *
     * @return the pid
     */
    public long pid() {
        return ProcessHandle.current().pid();
    }

    /**
     * Returns this actor JVM's maximum heap, to check that JVM options reached it.
     *
     * @return {@code Runtime.maxMemory()} in bytes
     */
    public long maxHeapBytes() {
        return Runtime.getRuntime().maxMemory();
    }

    /**
     * All-reduces a seeded random array made in this actor, as a trainer reduces its gradients.
     *
     * @param length the array length
     * @return this rank's input followed by the average
     */
    public float[][] averageOfRandom(int length) {
        float[] mine = random(length, 1000L + rank());
        return new float[][] {mine, allReduce(mine, ReduceOp.AVERAGE)};
    }

    /**
     * Times all-reduces of an array made in this actor.
     *
     * @param length floats per array
     * @param repeats how many all-reduces after one warm-up
     * @return nanoseconds of each timed all-reduce
     */
    public long[] timeAllReduce(int length, int repeats) {
        float[] data = random(length, rank());
        allReduce(data, ReduceOp.AVERAGE);
        long[] out = new long[repeats];
        for (int i = 0; i < repeats; i++) {
            long t0 = System.nanoTime();
            allReduce(data, ReduceOp.AVERAGE);
            out[i] = System.nanoTime() - t0;
        }
        return out;
    }

    /**
     * Times raw hand-offs of a {@code byte[]} to a peer: {@code Ray.put} here, the peer's
     * {@link #take} resolves the reference, this actor waits for its answer.
     *
     * @param peer the receiving actor
     * @param bytes bytes per hand-off
     * @param repeats how many timed hand-offs after one warm-up
     * @return nanoseconds of each timed hand-off
     */
    public long[] timeHandOff(ActorHandle<ProbeWorker> peer, int bytes, int repeats) {
        byte[] data = new byte[bytes];
        new Random(bytes).nextBytes(data);
        long[] out = new long[repeats + 1];
        for (int i = 0; i <= repeats; i++) {
            long t0 = System.nanoTime();
            ObjectRef<byte[]> ref = Ray.put(data);
            int got = peer.task(ProbeWorker::take, ref).remote().get();
            out[i] = System.nanoTime() - t0;
            if (got != bytes) {
                throw new IllegalStateException("peer got " + got + " bytes");
            }
        }
        return java.util.Arrays.copyOfRange(out, 1, out.length);
    }

    /**
     * Receives a hand-off.
     *
     * @param data the bytes
     * @return their number
     */
    public int take(byte[] data) {
        return data.length;
    }

    /**
     * Random inputs of a collective, one per rank, in {@code [-1, 1)}.
     *
     * @param n the number of ranks
     * @param length the floats per rank
     * @param seed the seed of the one generator they are drawn from, in rank order
     * @return the inputs
     */
    public static List<float[]> randomInputs(int n, int length, long seed) {
        Random rnd = new Random(seed);
        List<float[]> in = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            float[] a = new float[length];
            for (int i = 0; i < length; i++) {
                a[i] = rnd.nextFloat() * 2 - 1;
            }
            in.add(a);
        }
        return in;
    }

    static float[] random(int length, long seed) {
        Random rnd = new Random(seed);
        float[] a = new float[length];
        for (int i = 0; i < length; i++) {
            a[i] = rnd.nextFloat() * 2 - 1;
        }
        return a;
    }
}
