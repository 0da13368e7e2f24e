package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Loads items {@code 0..n-1} in order on a background thread, one ahead of the caller: while
 * the caller works on item {@code i} (decodes it, trains on it), item {@code i+1} is being read.
 * A failure to load surfaces from {@link #next()} as the loader threw it.
 *
 * @param <T> the items
 */
public final class Prefetch<T> implements AutoCloseable {

    private final int count;
    private final IntFunction<T> load;
    private final ExecutorService thread;
    private Future<T> ahead;
    private int next;

    /**
     * Starts loading item 0 at once.
     *
     * @param count the items
     * @param load loads item {@code i}
     * @param name the background thread's name, for logs and thread dumps
     */
    public Prefetch(int count, IntFunction<T> load, String name) {
        this.count = count;
        this.load = load;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        if (count > 0) {
            int first = 0;
            ahead = thread.submit(() -> load.apply(first));
        }
    }

    /**
     * Tells whether an item is left.
     *
     * @return {@code true} until all {@code count} items were returned
     */
    public boolean hasNext() {
        return next < count;
    }

    /**
     * Returns the next item, waiting for it if it is still loading, and starts loading the one
     * after it.
     *
     * @return the item
     */
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException("all " + count + " items were returned");
        }
        Future<T> current = ahead;
        int after = ++next;
        ahead = after < count ? thread.submit(() -> load.apply(after)) : null;
        try {
            return current.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            throw new DmlException("Reading item " + (after - 1) + " failed: " + c + ".",
                    "See the cause.", c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while prefetching");
        }
    }

    @Override
    public void close() {
        if (ahead != null) {
            ahead.cancel(true);
        }
        thread.shutdownNow();
    }
}
