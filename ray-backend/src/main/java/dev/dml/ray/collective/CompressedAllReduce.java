package dev.dml.ray.collective;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * One all-reduce of gradients in a compressed format, for one rank; the schemes themselves are
 * {@link GradientCompression}s, and the {@link Communicator} moves the bytes.
 *
 * <ul>
 *   <li>A {@link DenseCodec} runs the ring: in the reduce-scatter each hop decodes, adds its
 *       own part and encodes the partial sum again; the owner of each summed chunk encodes it
 *       once for the all-gather, which forwards those bytes unchanged, and uses the decoded
 *       values itself, so every rank ends with the same array.
 *   <li>{@link TopK} sends each rank's pairs to every other rank (an all-gather), and each
 *       rank adds all of them in rank order, again the same array everywhere. With a {@link
 *       MomentumCorrection} the rank's momentum first turns its gradient into its velocity,
 *       and the momentum of the elements sent is cleared after.
 * </ul>
 *
 * Every encoding's loss goes to the encoding rank's residual (error feedback). The last {@link
 * GradientCompressor#exactTail} elements travel as float32. The ring is flat over all ranks,
 * without the hierarchical layout of the plain all-reduce. {@link PowerSgd} does not come here:
 * it runs in {@link LowRankAllReduce}, over the plain all-reduce.
 */
final class CompressedAllReduce {

    private final Communicator comm;
    private final List<Integer> ring;
    private final long seq;
    private final List<Transport.Delivery> sent;

    CompressedAllReduce(Communicator comm, List<Integer> ring, long seq,
            List<Transport.Delivery> sent) {
        this.comm = comm;
        this.ring = ring;
        this.seq = seq;
        this.sent = sent;
    }

    /** Replaces {@code buf} (this rank's gradients) by the sum over ranks. */
    float[] sum(float[] buf, GradientCompressor c) {
        int m = buf.length - c.exactTail();
        if (c.scheme() instanceof DenseCodec d) {
            ring(buf, m, d, c.feedBack(buf, m));
            return buf;
        }
        c.correct(buf, m); // DGC: the residual accumulates the velocity, not the gradient
        return allGather(buf, m, c, c.feedBack(buf, m));
    }

    private void ring(float[] buf, int m, DenseCodec codec, float[] lost) {
        int n = ring.size();
        int pos = ring.indexOf(comm.rank());
        int[] right = {ring.get((pos + 1) % n)};
        int left = ring.get((pos + n - 1) % n);
        for (int step = 0; step < n - 1; step++) {
            int out = Math.floorMod(pos - step, n);
            int in = Math.floorMod(pos - step - 1, n);
            sent.add(comm.send(right, seq, step, encode(codec, buf, out, m, lost)));
            decode(codec, take(step, left), buf, in, m, true);
        }
        int own = (pos + 1) % n;
        byte[] payload = encode(codec, buf, own, m, lost);
        decode(codec, payload, buf, own, m, false); // the values every peer will decode
        for (int step = 0; step < n - 1; step++) {
            sent.add(comm.send(right, seq, Communicator.PHASE + step, payload));
            payload = take(Communicator.PHASE + step, left);
            decode(codec, payload, buf, Math.floorMod(pos - step, n), m, false);
        }
    }

    /** Chunk {@code c} of the ring: elements below {@code m} encoded, the rest float32. */
    private byte[] encode(DenseCodec codec, float[] buf, int c, int m, float[] lost) {
        int from = lo(buf, c);
        int to = lo(buf, c + 1);
        int split = Math.max(from, Math.min(to, m));
        ByteBuffer out = buffer(codec.encodedBytes(split - from) + Float.BYTES * (to - split));
        codec.encode(buf, from, split, out, lost);
        for (int i = split; i < to; i++) {
            out.putFloat(buf[i]);
        }
        return out.array();
    }

    private void decode(DenseCodec codec, byte[] payload, float[] buf, int c, int m,
            boolean add) {
        int from = lo(buf, c);
        int to = lo(buf, c + 1);
        int split = Math.max(from, Math.min(to, m));
        ByteBuffer in = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        codec.decode(in, buf, from, split, add);
        for (int i = split; i < to; i++) {
            buf[i] = add ? buf[i] + in.getFloat() : in.getFloat();
        }
    }

    private float[] allGather(float[] buf, int m, GradientCompressor c, float[] lost) {
        int tail = buf.length - m;
        int k = c.topKCount(m);
        ByteBuffer out = buffer(TopK.bytesFor(k) + Float.BYTES * tail);
        c.sent(TopK.encodeTop(buf, c.selectionWeights(), m, k, out, lost));
        for (int i = m; i < buf.length; i++) {
            out.putFloat(buf[i]);
        }
        byte[] mine = new byte[out.position()];
        out.flip().get(mine);
        int me = comm.rank();
        int[] others = ring.stream().mapToInt(Integer::intValue).filter(r -> r != me).toArray();
        if (others.length > 0) {
            sent.add(comm.send(others, seq, me, mine)); // keyed by the sender's rank
        }
        float[] sum = new float[buf.length];
        for (int r = 0; r < comm.size(); r++) { // rank order: the same sum on every rank
            ByteBuffer in = ByteBuffer.wrap(r == me ? mine : take(r, r))
                    .order(ByteOrder.LITTLE_ENDIAN);
            TopK.decodeAdd(in, sum);
            for (int i = m; i < buf.length; i++) {
                sum[i] += in.getFloat();
            }
        }
        return sum;
    }

    private byte[] take(int step, int from) {
        return comm.take(seq, step, from, -1, "compressed all-reduce");
    }

    private int lo(float[] buf, int c) {
        return Chunks.start(buf.length, ring.size(), c);
    }

    private static ByteBuffer buffer(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
