package dev.dml.ray.collective;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rank's side of the collectives: a ring all-reduce (reduce-scatter, then all-gather, each
 * in {@code n - 1} steps of one chunk to the right neighbour) and a broadcast from rank 0.
 *
 * <p>Every rank must call the same collectives in the same order; each call gets the next
 * sequence number, which keys the chunks in the {@link Mailbox}. One collective runs at a time
 * per rank.
 */
final class Communicator {

    private final int rank;
    private final int size;
    private final Transport transport;
    private final Duration timeout;
    private final Mailbox mailbox = new Mailbox();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private long seq;

    Communicator(int rank, int size, Transport transport, Duration timeout) {
        this.rank = rank;
        this.size = size;
        this.transport = transport;
        this.timeout = timeout;
    }

    int rank() {
        return rank;
    }

    int size() {
        return size;
    }

    /** Stores a chunk a peer sent; called on the delivery thread. */
    void deliver(long seq, int step, byte[] payload) {
        bytesReceived.addAndGet(payload.length);
        mailbox.deliver(seq, step, payload);
    }

    /** Ends the collective this rank waits in, and any later one, with a failure. */
    void abort(String why) {
        mailbox.abort(new CollectiveException("Rank " + rank + " stopped waiting for its peers: "
                + why + ".", "The group must be joined again before its next collective."));
    }

    /** Returns a new array: the element-wise reduction of every rank's {@code data}. */
    synchronized float[] allReduce(float[] data, ReduceOp op) {
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        float[] buf = data.clone();
        if (size > 1) {
            ring(buf, s, op);
        }
        finish(t0);
        return buf;
    }

    private void ring(float[] buf, long s, ReduceOp op) {
        int right = mod(rank + 1);
        int[] to = {right};
        List<Transport.Delivery> sent = new ArrayList<>();
        for (int step = 0; step < size - 1; step++) {
            int out = mod(rank - step);
            int in = mod(rank - step - 1);
            sent.add(send(to, s, step, Chunks.encode(buf, lo(buf, out), lo(buf, out + 1))));
            Chunks.addInto(buf, lo(buf, in), receive(s, step, buf, in, "all-reduce"));
        }
        int own = mod(rank + 1);
        if (op == ReduceOp.AVERAGE) {
            for (int i = lo(buf, own); i < lo(buf, own + 1); i++) {
                buf[i] /= size;
            }
        }
        for (int step = 0; step < size - 1; step++) {
            int out = mod(rank + 1 - step);
            int in = mod(rank - step);
            int wireStep = size - 1 + step;
            sent.add(send(to, s, wireStep, Chunks.encode(buf, lo(buf, out), lo(buf, out + 1))));
            Chunks.copyInto(buf, lo(buf, in), receive(s, wireStep, buf, in, "all-reduce"));
        }
        for (Transport.Delivery d : sent) {
            d.await(timeout);
        }
    }

    /** Returns rank 0's {@code data} on every rank; other ranks' {@code data} is ignored. */
    synchronized float[] broadcast(float[] data) {
        long t0 = System.nanoTime();
        long s = seq++;
        mailbox.dropBefore(s);
        float[] result;
        if (size == 1) {
            result = data.clone();
        } else if (rank == 0) {
            int[] to = new int[size - 1];
            for (int r = 1; r < size; r++) {
                to[r - 1] = r;
            }
            send(to, s, 0, Chunks.encode(data, 0, data.length)).await(timeout);
            result = data.clone();
        } else {
            result = Chunks.decode(take(s, 0, 0, "broadcast"));
        }
        finish(t0);
        return result;
    }

    private Transport.Delivery send(int[] to, long s, int step, byte[] payload) {
        messagesSent.addAndGet(to.length);
        bytesSent.addAndGet((long) payload.length * to.length);
        return transport.send(to, s, step, payload);
    }

    private byte[] receive(long s, int step, float[] buf, int chunk, String what) {
        byte[] payload = take(s, step, mod(rank - 1), what);
        int expected = lo(buf, chunk + 1) - lo(buf, chunk);
        if (payload.length != expected * Float.BYTES) {
            throw new CollectiveException(
                    "Rank " + rank + " got " + payload.length / Float.BYTES + " floats from rank "
                            + mod(rank - 1) + " where it expected " + expected + " (" + what
                            + " #" + s + "): the ranks passed arrays of different lengths.",
                    "Pass arrays of the same length on every rank.");
        }
        return payload;
    }

    private byte[] take(long s, int step, int from, String what) {
        try {
            return mailbox.take(s, step, timeout);
        } catch (TimeoutException e) {
            throw new CollectiveException(
                    "Rank " + rank + " got no data from rank " + from + " within "
                            + (timeout.toMillis() < 1000 ? timeout.toMillis() + " ms"
                                    : timeout.toSeconds() + " s")
                            + " (" + what + " #" + s + ", step " + step + ").",
                    "Every rank must call the same collectives in order; if a rank died, close "
                            + "the group and open a new one.");
        }
    }

    private void finish(long t0) {
        operations.incrementAndGet();
        nanos.addAndGet(System.nanoTime() - t0);
    }

    private int lo(float[] buf, int chunk) {
        return Chunks.start(buf.length, size, chunk);
    }

    private int mod(int r) {
        return ((r % size) + size) % size;
    }

    CollectiveStats stats() {
        return new CollectiveStats(operations.get(), messagesSent.get(), bytesSent.get(),
                bytesReceived.get(), nanos.get());
    }
}
