package dev.dml.ray.collective;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Chunks that arrived for this rank, keyed by collective and step, so that the order in which
 * Ray runs the deliveries does not matter.
 */
final class Mailbox {

    private record Key(long seq, int step) {}

    private final Map<Key, CompletableFuture<byte[]>> slots = new ConcurrentHashMap<>();
    private volatile CollectiveException aborted;

    private CompletableFuture<byte[]> slot(long seq, int step) {
        CompletableFuture<byte[]> f = slots.computeIfAbsent(new Key(seq, step),
                k -> new CompletableFuture<>());
        CollectiveException a = aborted;
        if (a != null) {
            f.completeExceptionally(a); // after abort() every wait fails at once
        }
        return f;
    }

    /** Stores a chunk; called on Ray's delivery thread. */
    void deliver(long seq, int step, byte[] payload) {
        slot(seq, step).complete(payload);
    }

    /**
     * Takes the chunk of a step, waiting for it.
     *
     * @return the payload
     * @throws TimeoutException when it does not arrive in time
     */
    byte[] take(long seq, int step, Duration timeout) throws TimeoutException {
        CompletableFuture<byte[]> f = slot(seq, step);
        try {
            byte[] b = f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            slots.remove(new Key(seq, step));
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
