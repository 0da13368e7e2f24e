package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A consistent-hash ring that maps keys to workers {@code 0..workers-1}.
 *
 * <p>Each worker owns {@code virtualNodes} points on a 64-bit ring; a key belongs to the worker
 * owning the first point at or after the key's hash. Hashes are a fixed function of the key's
 * UTF-8 bytes (FNV-1a followed by the MurmurHash3 finaliser), so the mapping is the same in every
 * run and every JVM, and growing the ring from {@code N} to {@code N+1} workers moves only about
 * {@code 1/(N+1)} of the keys, all of them to the new worker.
 */
public final class HashRing implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The default number of points per worker; enough for a ±10% balance. */
    public static final int DEFAULT_VIRTUAL_NODES = 256;

    private final int workers;
    private final int virtualNodes;
    private final long[] points;
    private final int[] owners;

    /**
     * Creates a ring with {@link #DEFAULT_VIRTUAL_NODES} points per worker.
     *
     * @param workers the number of workers, at least 1
     */
    public HashRing(int workers) {
        this(workers, DEFAULT_VIRTUAL_NODES);
    }

    /**
     * Creates a ring.
     *
     * @param workers the number of workers, at least 1
     * @param virtualNodes points per worker, at least 1
     */
    public HashRing(int workers, int virtualNodes) {
        if (workers < 1 || virtualNodes < 1) {
            throw new DmlException(
                    "A hash ring needs at least 1 worker and 1 virtual node, got "
                            + workers + " and " + virtualNodes + ".",
                    "Pass positive counts, e.g. new HashRing(4).");
        }
        this.workers = workers;
        this.virtualNodes = virtualNodes;
        int n = workers * virtualNodes;
        long[][] pairs = new long[n][];
        for (int w = 0; w < workers; w++) {
            for (int v = 0; v < virtualNodes; v++) {
                pairs[w * virtualNodes + v] = new long[] {hash("worker-" + w + "#" + v), w};
            }
        }
        Arrays.sort(pairs, (a, b) -> a[0] != b[0] ? Long.compareUnsigned(a[0], b[0])
                : Long.compare(a[1], b[1]));
        this.points = new long[n];
        this.owners = new int[n];
        for (int i = 0; i < n; i++) {
            points[i] = pairs[i][0];
            owners[i] = (int) pairs[i][1];
        }
    }

    /**
     * Returns the number of workers.
     *
     * @return the worker count
     */
    public int workers() {
        return workers;
    }

    /**
     * Returns the number of points per worker.
     *
     * @return the virtual node count
     */
    public int virtualNodes() {
        return virtualNodes;
    }

    /**
     * Returns the worker that owns {@code key}.
     *
     * @param key the key, usually a column value's string form
     * @return a worker index in {@code 0..workers-1}
     */
    public int workerFor(String key) {
        return workerForHash(hash(key));
    }

    /**
     * Returns the worker that owns a key hash made by {@link #hash(String)}.
     *
     * @param h the key's hash
     * @return a worker index in {@code 0..workers-1}
     */
    public int workerForHash(long h) {
        int lo = 0;
        int hi = points.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(points[mid], h) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return owners[lo == points.length ? 0 : lo];
    }

    /**
     * Hashes a key: FNV-1a 64 over its UTF-8 bytes, then the MurmurHash3 64-bit finaliser.
     *
     * @param key the key
     * @return a stable 64-bit hash
     */
    public static long hash(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        long h = 0xcbf29ce484222325L;
        for (byte b : bytes) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
