package dev.dml.ray.collective;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A data-parallel rank's reduced gradients sharded as ZeRO-2 ({@code --shard-gradients}): each
 * gradient bucket is reduce-scattered over the ring, and the rank keeps only the chunk of each
 * bucket that the ring leaves it, packed end to end in an array of their size ({@link
 * #owned}). Where buckets overlap the backward (as {@link GradientReducer}'s all-reduces do:
 * more than one bucket and rank, direct links), each is reduce-scattered on a communication
 * thread as soon as the backward hands it over; otherwise every bucket is reduce-scattered in
 * turn after the backward. After the optimizer has updated the owned chunks, {@link #gather}
 * all-gathers the parameters bucket by bucket. Nothing here is as long as the model: besides
 * the owned array, two bucket-sized arrays are reused (one while overlapping the backward).
 *
 * <p>A bucket's chunk is the one {@link CollectiveWorker#shardRange} gives for its length, so
 * the owned values are bitwise those the bucket's all-reduce returns there.
 */
public final class ShardedGradients implements AutoCloseable {

    /** Reads or writes one bucket of the model's flat values through a bucket-sized array. */
    public interface BucketIo {

        /**
         * Moves one bucket's values between the model and the start of {@code a}.
         *
         * @param bucket the bucket, from the input side
         * @param a a bucket-sized array
         */
        void apply(int bucket, float[] a);
    }

    /** How long a bucket's array may be awaited: longer than any collective's timeout. */
    private static final long ARRAY_WAIT_MINUTES = 30;

    private final CollectiveWorker peers;
    /** Each bucket's first flat element, and the model's length last. */
    private final int[] offsets;
    /** Each bucket's owned chunk, as pairs {@code from, to} in flat indices. */
    private final int[] ranges;
    /** Where each bucket's chunk starts in {@link #owned}, and its length last. */
    private final int[] packed;
    private final float[] owned;
    private final int arrays;
    private final int longest;
    private BlockingQueue<float[]> free;
    private ExecutorService comm;
    private final List<Future<?>> sent = new ArrayList<>();

    /**
     * Shards the gradients of a model cut into buckets over this rank's group.
     *
     * @param peers the rank
     * @param bucketOffsets each bucket's first flat element and the model's length last
     */
    public ShardedGradients(CollectiveWorker peers, int[] bucketOffsets) {
        this.peers = peers;
        this.offsets = bucketOffsets.clone();
        int n = offsets.length - 1;
        this.ranges = new int[2 * n];
        this.packed = new int[n + 1];
        int most = 0;
        for (int b = 0; b < n; b++) {
            int[] r = peers.shardRange(offsets[b + 1] - offsets[b]);
            ranges[2 * b] = offsets[b] + r[0];
            ranges[2 * b + 1] = offsets[b] + r[1];
            packed[b + 1] = packed[b] + r[1] - r[0];
            most = Math.max(most, offsets[b + 1] - offsets[b]);
        }
        this.owned = new float[packed[n]];
        this.longest = most;
        this.arrays = overlaps(n) ? 2 : 1;
        reset();
    }

    private boolean overlaps(int buckets) {
        return buckets > 1 && GradientReducer.canOverlap(peers);
    }

    /** Fresh arrays and thread: a failed step may have left either in use. */
    private void reset() {
        close();
        free = new ArrayBlockingQueue<>(arrays);
        for (int i = 0; i < arrays; i++) {
            free.add(new float[longest]);
        }
        comm = arrays > 1 ? GradientReducer.commThread(peers) : null;
    }

    /**
     * Whether the backward should hand its buckets to {@link #bucketReady} as it ends them.
     *
     * @return true when their reduce-scatters overlap the backward
     */
    public boolean overlaps() {
        return comm != null;
    }

    /**
     * Returns the chunks this rank owns, one per bucket.
     *
     * @return pairs {@code from, to} of flat indices, ascending
     */
    public int[] ranges() {
        return ranges.clone();
    }

    /**
     * Returns the owned reduced gradients, each bucket's chunk end to end; the optimizer
     * leaves the chunks' updated parameters there for {@link #gather}.
     *
     * @return the array, reused every step
     */
    public float[] owned() {
        return owned;
    }

    /**
     * Returns the bytes of gradient buffers held: the owned chunks and the bucket arrays.
     *
     * @return 4 per float
     */
    public long bufferBytes() {
        return (long) Float.BYTES * (owned.length + (long) arrays * longest);
    }

    /**
     * Takes a free bucket-sized array for the backward to copy a bucket into; waits while both
     * are being reduce-scattered.
     *
     * @return an array of at least the longest bucket's length
     */
    public float[] takeArray() {
        try {
            float[] a = free.poll(ARRAY_WAIT_MINUTES, TimeUnit.MINUTES);
            if (a == null) {
                throw new DmlException("No gradient bucket was reduce-scattered within "
                        + ARRAY_WAIT_MINUTES + " minutes.", "Run the job again.");
            }
            return a;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("The step was interrupted while its gradients were being"
                    + " reduce-scattered.", "Run the job again.");
        }
    }

    /**
     * Starts averaging one bucket on the communication thread, keeping this rank's chunk; the
     * array goes back to the free ones when done.
     *
     * @param bucket the bucket
     * @param a the array {@link #takeArray} gave, the bucket's gradients at its start
     */
    public void bucketReady(int bucket, float[] a) {
        sent.add(comm.submit(() -> keep(bucket, a, ReduceOp.AVERAGE)));
    }

    /** Reduce-scatters a bucket on the communication thread, then frees its array. */
    private Void keep(int bucket, float[] a, ReduceOp op) {
        try {
            keepChunk(bucket, a, op);
            return null;
        } finally {
            free.add(a);
        }
    }

    /** Reduce-scatters a bucket held at the start of {@code a}; copies this rank's chunk out. */
    private void keepChunk(int bucket, float[] a, ReduceOp op) {
        int[] r = peers.reduceScatter(a, 0, offsets[bucket + 1] - offsets[bucket], op);
        System.arraycopy(a, r[0], owned, packed[bucket], r[1] - r[0]);
    }

    /** Waits until every bucket handed over is reduce-scattered into {@link #owned}. */
    public void await() {
        try {
            for (Future<?> f : sent) {
                GradientReducer.await(f);
            }
        } finally {
            boolean failed = sent.stream().anyMatch(f -> !f.isDone() || f.isCancelled());
            sent.clear();
            if (failed) {
                reset();
            }
        }
    }

    /** Drops the buckets of a step that failed: they must not run in a later group. */
    public void abandon() {
        if (!sent.isEmpty()) {
            sent.clear();
            reset();
        }
    }

    /**
     * Reduce-scatters every bucket after the backward, on this thread, the last bucket first.
     *
     * @param read copies a bucket's gradients from the model
     * @param scale multiplies each gradient before the reduction (1 for none)
     * @param op sum or average
     */
    public void reduce(BucketIo read, float scale, ReduceOp op) {
        float[] a = takeArray();
        try {
            for (int b = offsets.length - 2; b >= 0; b--) {
                int n = offsets[b + 1] - offsets[b];
                read.apply(b, a);
                if (scale != 1f) {
                    for (int i = 0; i < n; i++) {
                        a[i] *= scale;
                    }
                }
                keepChunk(b, a, op);
            }
        } finally {
            free.add(a);
        }
    }

    /**
     * All-gathers the parameters bucket by bucket: each rank's updated chunks from {@link
     * #owned} into every rank's model.
     *
     * @param write overwrites a bucket's parameters with an array's start
     */
    public void gather(BucketIo write) {
        float[] a = takeArray();
        try {
            for (int b = 0; b < offsets.length - 1; b++) {
                int lo = ranges[2 * b] - offsets[b];
                System.arraycopy(owned, packed[b], a, lo, packed[b + 1] - packed[b]);
                peers.allGather(a, 0, offsets[b + 1] - offsets[b]);
                write.apply(b, a);
            }
        } finally {
            free.add(a);
        }
    }

    /** Stops the communication thread. */
    @Override
    public void close() {
        if (comm != null) {
            comm.shutdownNow();
        }
    }
}
