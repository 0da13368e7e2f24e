package dev.dml.ray.collective;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Chunks that arrived for this rank, keyed by collective, step and sender, so that the order in
 * which Ray runs the deliveries does not matter, and a chunk from one rank can never stand in
 * for the chunk a collective waits for from another.
 */
final class Mailbox {

    private record Key(long seq, int step, int from) {}

    private final Map<Key, CompletableFuture<byte[]>> slots = new ConcurrentHashMap<>();
    private volatile CollectiveException aborted;

    private CompletableFuture<byte[]> slot(long seq, int step, int from) {
        CompletableFuture<byte[]> f = slots.computeIfAbsent(new Key(seq, step, from),
                k -> new CompletableFuture<>());
        CollectiveException a = aborted;
        if (a != null) {
            f.completeExceptionally(a); // after abort() every wait fails at once
        }
        return f;
    }

    /** Stores a chunk {@code from} sent; called on a delivery thread. */
    void deliver(int from, long seq, int step, byte[] payload) {
        slot(seq, step, from).complete(payload);
    }

    /**
     * Takes the chunk {@code from} sent for a step, waiting for it.
     *
     * @return the payload
     * @throws TimeoutException when it does not arrive in time
     */
    byte[] take(long seq, int step, int from, Duration timeout) throws TimeoutException {
        CompletableFuture<byte[]> f = slot(seq, step, from);
        try {
            byte[] b = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            slots.remove(new Key(seq, step, from));
            return b;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CollectiveException c) {
                throw c;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Fails every wait, present and future, with {@code reason}: a collective whose peer is gone
     * ends now instead of at its timeout.
     */
    void abort(CollectiveException reason) {
        aborted = reason;
        slots.values().forEach(f -> f.completeExceptionally(reason));
    }

    /** Drops chunks of collectives before {@code seq} (left over from a failed one). */
    void dropBefore(long seq) {
        slots.keySet().removeIf(k -> k.seq() < seq);
    }
}
