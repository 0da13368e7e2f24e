package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A data-parallel rank's gradient reduction, as DDP's reducer does it: each step it sums or
 * averages the rank's flat gradients with its peers, compressed by the rank's {@link
 * GradientCompressor}; and when the model's backward hands its gradients out in buckets (the
 * last layers' first), it averages each bucket on a communication thread as soon as it is
 * ready, while the earlier layers' backward goes on. Buckets go in the same order on every
 * rank, so their collectives match; their averages are the whole array's, bucket by bucket.
 *
 * <p>Buckets overlap only where that is safe and useful: more than one bucket, more than one
 * rank, a lossless {@code --compress} (a lossy codec's error feedback needs the whole array)
 * and direct TCP links (Ray's calls need a task's thread). Otherwise {@link #overlaps} is false
 * and the caller reduces the whole array after the backward.
 */
public final class GradientReducer implements AutoCloseable {

    private final CollectiveWorker peers;
    private final GradientCompressor compressor;
    /** Each bucket's first element in the flat gradients, and their length last; or null. */
    private final int[] offsets;
    private final ExecutorService comm;
    private final List<Future<float[]>> sent = new ArrayList<>();
    private final List<Integer> sentBuckets = new ArrayList<>();

    /**
     * Creates a rank's reducer.
     *
     * @param peers the rank, whose group the gradients are reduced in
     * @param compressor its compression and error feedback, which the reducer updates
     * @param bucketOffsets each bucket's first element in the flat gradients and their length
     *     last; null for none
     */
    public GradientReducer(CollectiveWorker peers, GradientCompressor compressor,
            int[] bucketOffsets) {
        this.peers = peers;
        this.compressor = compressor;
        boolean overlap = bucketOffsets != null && bucketOffsets.length > 2
                && !compressor.scheme().lossy() && canOverlap(peers);
        this.offsets = overlap ? bucketOffsets.clone() : null;
        this.comm = overlap ? commThread(peers) : null;
    }

    /**
     * Whether buckets can overlap the backward in this rank's group: more than one rank, and
     * direct links (Ray's calls need a task's thread).
     */
    static boolean canOverlap(CollectiveWorker peers) {
        return peers.info().worldSize() > 1 && TransportKind.allDirect(peers.info().transport());
    }

    /** The communication thread that reduces buckets while the backward goes on. */
    static ExecutorService commThread(CollectiveWorker peers) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "dml-overlap-" + peers.info().rank());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Whether the backward should hand its buckets to {@link #bucketReady}.
     *
     * @return true when the buckets' all-reduces overlap the backward
     */
    public boolean overlaps() {
        return offsets != null;
    }

    /**
     * Starts averaging one bucket's gradients with the peers, on the communication thread.
     *
     * @param bucket the bucket, numbered from the input side
     * @param gradients its gradients; read by the communication thread, so not reused before
     *     {@link #reduce} returns
     */
    public void bucketReady(int bucket, float[] gradients) {
        sentBuckets.add(bucket);
        sent.add(comm.submit(() -> peers.allReduce(gradients, ReduceOp.AVERAGE)));
    }

    /**
     * Ends a step's reduction: with buckets, waits for each and writes its average into {@code
     * gradients}; otherwise reduces {@code gradients} whole (a lone rank without a compressor
     * that needs it keeps its own).
     *
     * @param gradients the rank's flat gradients
     * @param op sum or average (the buckets always average)
     * @param epochs the training's progress in epochs, for top-k's warm-up
     * @return the reduced gradients: {@code gradients} itself, or a new array
     */
    public float[] reduce(float[] gradients, ReduceOp op, double epochs) {
        if (overlaps()) {
            return awaitBuckets(gradients);
        }
        if (peers.info().worldSize() == 1 && !compressor.correctsMomentum()) {
            return gradients;
        }
        compressor.setProgress(epochs);
        return peers.allReduceCompressed(gradients, op, compressor);
    }

    private float[] awaitBuckets(float[] into) {
        try {
            for (int i = 0; i < sent.size(); i++) {
                int bucket = sentBuckets.get(i);
                System.arraycopy(await(sent.get(i)), 0, into, offsets[bucket],
                        offsets[bucket + 1] - offsets[bucket]);
            }
            return into;
        } finally {
            // after a failure, a bucket still queued must not run in the group recovery forms
            sent.forEach(f -> f.cancel(true));
            sent.clear();
            sentBuckets.clear();
        }
    }

    /** Cancels the buckets sent in a step that failed before {@link #reduce}. */
    public void abandon() {
        sent.forEach(f -> f.cancel(true));
        sent.clear();
        sentBuckets.clear();
    }

    /** Waits for a bucket's collective; a peer's failure comes out as its exception. */
    static <T> T await(Future<T> f) {
        try {
            return f.get(); // bounded: every take in the all-reduce has the group's timeout
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("The step was interrupted while its gradients were being"
                    + " all-reduced.", "Run the job again.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r; // a CollectiveException: a peer failed, and recovery takes it from here
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Returns the rank's compressor.
     *
     * @return the compressor this reducer updates
     */
    public GradientCompressor compressor() {
        return compressor;
    }

    /** Stops the communication thread. */
    @Override
    public void close() {
        if (comm != null) {
            comm.shutdownNow();
        }
    }
}
