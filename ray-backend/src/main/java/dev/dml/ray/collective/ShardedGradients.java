package dev.dml.ray.collective;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A data-parallel rank's reduced gradients sharded as ZeRO-2 ({@code --shard-gradients}): each
 * gradient bucket is reduce-scattered over the ring, and the rank keeps only the chunk of each
 * bucket that the ring leaves it ({@link CollectiveWorker#shardRange} of the bucket's length),
 * packed end to end in an array of their size ({@link #owned}). Where buckets overlap the
 * backward (as {@link GradientReducer}'s all-reduces do: more than one bucket and rank, direct
 * links), each is reduce-scattered on a communication thread as soon as the backward hands it
 * over; otherwise every bucket is reduce-scattered in turn after the backward. Once the
 * optimizer has updated the owned chunks, {@link #gather} all-gathers a bucket's parameters.
 *
 * <p>Nothing here is as long as a bucket: the collectives read the gradients from the model
 * and write the parameters back into it ({@link FlatRange}), in pieces of about {@code
 * pieceFloats} through one reused array. A piece takes the same slice of every rank's chunk of
 * the bucket, and its chunks are summed in the order the chunk's index sets, so every element
 * gets bitwise what the whole bucket's reduce-scatter (or all-reduce) gives it.
 */
public final class ShardedGradients implements AutoCloseable {

    /** Moves flat elements {@code [from, to)} of the model between it and an array. */
    public interface FlatRange {

        /**
         * Moves one run of elements.
         *
         * @param from the first flat index
         * @param to one past the last
         * @param a the array
         * @param at the array's index of element {@code from}
         */
        void apply(int from, int to, float[] a, int at);
    }

    private final CollectiveWorker peers;
    /** Each bucket's first flat element, and the model's length last. */
    private final int[] offsets;
    /** Each bucket's chunk bounds relative to its start, {@code n + 1} of them. */
    private final int[][] chunks;
    /** Each bucket's pieces. */
    private final int[] pieces;
    private final int own;
    /** Where each bucket's chunk starts in {@link #owned}, and its length last. */
    private final int[] packed;
    private final float[] owned;
    /** One piece of every rank's chunks; used by one collective at a time. */
    private final float[] piece;
    private ExecutorService comm;
    private final List<Future<?>> sent = new ArrayList<>();

    /**
     * Shards the gradients of a model cut into buckets over this rank's group.
     *
     * @param peers the rank
     * @param bucketOffsets each bucket's first flat element and the model's length last
     * @param pieceFloats about how many elements one collective moves
     */
    public ShardedGradients(CollectiveWorker peers, int[] bucketOffsets, int pieceFloats) {
        this.peers = peers;
        this.offsets = bucketOffsets.clone();
        Communicator c = peers.communicator();
        int n = c.size();
        int buckets = offsets.length - 1;
        this.own = ShardRing.ownChunk(c);
        this.chunks = new int[buckets][];
        this.pieces = new int[buckets];
        this.packed = new int[buckets + 1];
        int longest = 0;
        for (int b = 0; b < buckets; b++) {
            int length = offsets[b + 1] - offsets[b];
            chunks[b] = Communicator.bounds(0, length, n);
            pieces[b] = Math.max(1, (int) Math.ceil((double) length / pieceFloats));
            packed[b + 1] = packed[b] + chunks[b][own + 1] - chunks[b][own];
            // a piece holds at most ceil(chunk / pieces) of each of the n chunks
            int chunk = chunks[b][1] - chunks[b][0] + 1;
            longest = Math.max(longest, n * ((chunk + pieces[b] - 1) / pieces[b]));
        }
        this.owned = new float[packed[buckets]];
        this.piece = new float[longest];
        this.comm = buckets > 1 && GradientReducer.canOverlap(peers)
                ? GradientReducer.commThread(peers) : null;
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
        int[] r = new int[2 * chunks.length];
        for (int b = 0; b < chunks.length; b++) {
            r[2 * b] = offsets[b] + chunks[b][own];
            r[2 * b + 1] = offsets[b] + chunks[b][own + 1];
        }
        return r;
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
     * Returns the bytes of gradient buffers held: the owned chunks and the piece array.
     *
     * @return 4 per float
     */
    public long bufferBytes() {
        return (long) Float.BYTES * (owned.length + piece.length);
    }

    /**
     * Starts averaging one bucket on the communication thread, keeping this rank's chunk.
     *
     * @param bucket the bucket
     * @param gradients reads the bucket's gradients from the model: valid until {@link #await}
     */
    public void bucketReady(int bucket, FlatRange gradients) {
        sent.add(comm.submit(() -> {
            reduce(bucket, gradients, 1f, ReduceOp.AVERAGE);
            return null;
        }));
    }

    /** Waits until every bucket handed over is reduce-scattered into {@link #owned}. */
    public void await() {
        try {
            for (Future<?> f : sent) {
                GradientReducer.await(f);
            }
        } finally {
            abandon();
        }
    }

    /** Drops the buckets of a step that failed: a queued one must not run in a later group. */
    public void abandon() {
        sent.forEach(f -> f.cancel(true));
        sent.clear();
    }

    /**
     * Reduce-scatters one bucket, piece by piece, keeping this rank's chunk in {@link #owned}.
     *
     * @param bucket the bucket
     * @param gradients reads its gradients from the model
     * @param scale multiplies each gradient before the reduction (1 for none)
     * @param op sum or average
     */
    public void reduce(int bucket, FlatRange gradients, float scale, ReduceOp op) {
        Communicator c = peers.communicator();
        for (int k = 0; k < pieces[bucket]; k++) {
            int[] at = pieceBounds(bucket, k);
            int[] lo = pieceStarts(bucket, k);
            for (int r = 0; r < at.length - 1; r++) {
                gradients.apply(lo[r], lo[r] + at[r + 1] - at[r], piece, at[r]);
            }
            if (scale != 1f) {
                for (int i = 0; i < at[at.length - 1]; i++) {
                    piece[i] *= scale;
                }
            }
            ShardRing.half(c, piece, at, true);
            if (op == ReduceOp.AVERAGE && c.size() > 1) {
                for (int i = at[own]; i < at[own + 1]; i++) {
                    piece[i] /= c.size(); // as the all-reduce averages, element by element
                }
            }
            System.arraycopy(piece, at[own], owned, packed[bucket] + lo[own] - offsets[bucket]
                    - chunks[bucket][own], at[own + 1] - at[own]);
        }
    }

    /**
     * All-gathers one bucket's parameters, piece by piece: this rank's updated chunk from
     * {@link #owned} to every rank, and every rank's chunk into this rank's model.
     *
     * @param bucket the bucket
     * @param parameters writes its parameters into the model
     */
    public void gather(int bucket, FlatRange parameters) {
        Communicator c = peers.communicator();
        for (int k = 0; k < pieces[bucket]; k++) {
            int[] at = pieceBounds(bucket, k);
            int[] lo = pieceStarts(bucket, k);
            System.arraycopy(owned, packed[bucket] + lo[own] - offsets[bucket]
                    - chunks[bucket][own], piece, at[own], at[own + 1] - at[own]);
            ShardRing.half(c, piece, at, false);
            for (int r = 0; r < at.length - 1; r++) {
                parameters.apply(lo[r], lo[r] + at[r + 1] - at[r], piece, at[r]);
            }
        }
    }

    /** Piece {@code k}'s bounds in {@link #piece}: chunk r's slice at {@code [at[r], at[r+1])}. */
    private int[] pieceBounds(int bucket, int k) {
        int[] cb = chunks[bucket];
        int[] at = new int[cb.length];
        for (int r = 0; r < cb.length - 1; r++) {
            int len = cb[r + 1] - cb[r];
            at[r + 1] = at[r] + Chunks.start(len, pieces[bucket], k + 1)
                    - Chunks.start(len, pieces[bucket], k);
        }
        return at;
    }

    /** Piece {@code k}'s slice of each chunk: its first flat index. */
    private int[] pieceStarts(int bucket, int k) {
        int[] cb = chunks[bucket];
        int[] lo = new int[cb.length - 1];
        for (int r = 0; r < lo.length; r++) {
            lo[r] = offsets[bucket] + cb[r] + Chunks.start(cb[r + 1] - cb[r], pieces[bucket], k);
        }
        return lo;
    }

    /** Stops the communication thread. */
    @Override
    public void close() {
        if (comm != null) {
            comm.shutdownNow();
        }
    }
}
