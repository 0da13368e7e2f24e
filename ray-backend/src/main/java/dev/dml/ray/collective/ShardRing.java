package dev.dml.ray.collective;

import java.util.ArrayList;
import java.util.List;

/**
 * The halves of the ring all-reduce on their own, for an optimizer sharded as ZeRO-1 or ZeRO-2:
 * a reduce-scatter that leaves each rank the sums (or averages) of its own range of a flat array
 * (or of a part of it, such as a gradient bucket), and an all-gather that fills every other
 * range from the rank that owns it. A rank's range is
 * the chunk its ring position ends the reduce-scatter with ({@code (p + 1) mod n} for position
 * {@code p}), so a reduce-scatter and an all-gather make the {@link Communicator}'s all-reduce,
 * and the owned range holds bitwise what that all-reduce returns there. The ring is always the
 * flat one (node by node), also where the all-reduce would be hierarchical. The algorithm is the
 * communicator's, over its {@link Transport}; this class only runs its halves apart.
 */
final class ShardRing {

    private ShardRing() {}

    /** The range {@code {from, to}} of a {@code length}-element array this rank owns. */
    static int[] range(Communicator c, int length) {
        int n = c.size();
        int own = ownChunk(c);
        return new int[] {Communicator.lo(0, length, n, own),
            Communicator.lo(0, length, n, own + 1)};
    }

    /**
     * Sums every rank's {@code buf} into the range this rank owns, in place, and averages it
     * there if asked; the rest of {@code buf} is left holding partial sums.
     *
     * @return the range this rank owns
     */
    static int[] reduceScatter(Communicator c, float[] buf, ReduceOp op) {
        return reduceScatter(c, buf, 0, buf.length, op);
    }

    /**
     * {@link #reduceScatter(Communicator, float[], ReduceOp)} over {@code buf[from, to)} alone:
     * the range owned is a {@code (to - from)}-element array's {@link #range}, shifted by
     * {@code from}.
     */
    static int[] reduceScatter(Communicator c, float[] buf, int from, int to, ReduceOp op) {
        int[] mine = range(c, to - from);
        mine[0] += from;
        mine[1] += from;
        half(c, buf, from, to, true);
        if (op == ReduceOp.AVERAGE && c.size() > 1) {
            for (int i = mine[0]; i < mine[1]; i++) {
                buf[i] /= c.size(); // as the all-reduce averages, element by element
            }
        }
        return mine;
    }

    /** Fills {@code buf}, in place, with every rank's own range of it. */
    static void allGather(Communicator c, float[] buf) {
        allGather(c, buf, 0, buf.length);
    }

    /**
     * Fills {@code buf[from, to)}, in place, with every rank's own range of it: the range a
     * {@code (to - from)}-element array's {@link #range} is, shifted by {@code from}.
     */
    static void allGather(Communicator c, float[] buf, int from, int to) {
        half(c, buf, from, to, false);
    }

    /** One half of the ring over {@code buf[from, to)}, as one collective of its own. */
    private static void half(Communicator c, float[] buf, int from, int to, boolean reduce) {
        half(c, buf, Communicator.bounds(from, to, c.size()), reduce);
    }

    /**
     * The index of the chunk this rank owns after a reduce-scatter (and sends first in an
     * all-gather): chunk {@code c} of {@code n} is what {@link #range} splits off.
     */
    static int ownChunk(Communicator c) {
        return (c.ring().indexOf(c.rank()) + 1) % c.size();
    }

    /**
     * One half of the ring over chunks {@code [at[k], at[k + 1])} of {@code buf}, one per
     * rank, as one collective: a reduce-scatter (summing; this rank's chunk is {@link
     * #ownChunk}) or an all-gather. Chunks cut from the same chunks of a larger array, piece
     * by piece, get bitwise what that array's reduce-scatter gives them.
     */
    static void half(Communicator c, float[] buf, int[] at, boolean reduce) {
        synchronized (c) {
            long t0 = System.nanoTime();
            long s = c.begin();
            List<Transport.Delivery> sent = new ArrayList<>();
            if (c.size() > 1 && reduce) {
                c.reduceScatter(c.ring(), buf, at, s, 0, sent);
            } else if (c.size() > 1) {
                c.allGather(c.ring(), buf, at, s, 0, sent);
            }
            c.end(buf, ReduceOp.SUM, sent, t0); // counts it and waits for its sends
        }
    }

    /**
     * The sum of every rank's {@code x}, the same on every rank: each sends its value as two
     * floats (about 48 bits of the double), and every rank adds them in ring order.
     */
    static double sum(Communicator c, double x) {
        int n = c.size();
        if (n == 1) {
            return x;
        }
        float[] pairs = new float[2 * n];
        int at = range(c, pairs.length)[0];
        float hi = (float) x;
        pairs[at] = hi;
        pairs[at + 1] = (float) (x - hi);
        allGather(c, pairs);
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += (double) pairs[2 * i] + pairs[2 * i + 1];
        }
        return total;
    }
}
