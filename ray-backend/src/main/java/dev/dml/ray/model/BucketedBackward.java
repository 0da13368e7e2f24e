package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A whole model's training step whose backward pass runs in buckets of layers, from the output
 * back, handing each bucket's gradients out the moment its layers are done, so that a
 * data-parallel rank's reducer ({@code collective.GradientReducer}, as DDP's does with its
 * gradient buckets) all-reduces them while the earlier layers' backward goes on.
 *
 * <p>DJL has no per-parameter gradient hooks, so the model is cut where the buckets meet, as
 * the model-parallel stages are ({@link MicroBatchGraph}): the forward detaches the activation
 * at each cut into a leaf that records its gradient; the backward runs the loss through the last
 * bucket, then each earlier bucket through {@code sum(h * g)}, where {@code g} is the gradient
 * its successor left on the leaf. By the chain rule the gradients are those of one backward.
 *
 * <p>Buckets are whole layers. From the output back, a bucket takes layers until it holds
 * {@code bucketFloats} parameters; the rest go to the buckets before. A model that fits one
 * bucket has nothing to overlap: {@link #buckets()} is 1 and callers take the plain step.
 */
public final class BucketedBackward {

    /** Receives a bucket's gradients, in backward order (the last layers' bucket first). */
    public interface BucketSink {

        /**
         * Takes the gradients of one bucket; the array is reused for the next step.
         *
         * @param bucket the bucket, numbered from the input side
         * @param gradients its gradients, flat
         */
        void ready(int bucket, float[] gradients);

        /**
         * The array a bucket's gradients are copied into before {@link #ready}: the sink's
         * own (ZeRO-2 reuses a few bucket-sized ones), or null for the backward's, one per
         * bucket, kept across steps.
         *
         * @param bucket the bucket
         * @param length its gradients' length
         * @return an array of at least {@code length} floats, or null
         */
        default float[] arrayFor(int bucket, int length) {
            return null;
        }
    }

    private final ModelStage stage;
    /** The first block of each bucket, and the stage's block count last. */
    private final int[] blockCuts;
    /** The first parameter (index) of each bucket, and the parameter count last. */
    private final int[] parameterCuts;
    /** Each bucket's flat offset, and the flat length last. */
    private final int[] offsets;
    /** Each bucket's own array, made when first needed. */
    private final float[][] arrays;

    private BucketedBackward(ModelStage stage, List<Integer> layerCuts) {
        this.stage = stage;
        int[] starts = stage.network().layerStarts();
        int n = layerCuts.size() - 1;
        blockCuts = new int[n + 1];
        parameterCuts = new int[n + 1];
        offsets = new int[n + 1];
        long[] perLayer = stage.network().layerParameters();
        long flat = 0;
        int layer = 0;
        for (int b = 0; b <= n; b++) {
            int cut = layerCuts.get(b);
            for (; layer < cut; layer++) {
                flat += perLayer[layer];
            }
            blockCuts[b] = cut == starts.length ? stage.network().blockCount()
                    : starts[cut];
            offsets[b] = (int) flat;
            parameterCuts[b] = stage.buffers().parameterAt((int) flat);
        }
        arrays = new float[n][];
    }

    /**
     * Cuts a whole model into buckets of at least {@code bucketFloats} parameters each, counted
     * from the output (the bucket nearest the input may hold fewer).
     *
     * @param stage the whole model
     * @param bucketFloats the parameters a bucket holds before the next one starts
     * @return the buckets
     */
    public static BucketedBackward of(ModelStage stage, long bucketFloats) {
        long[] perLayer = stage.network().layerParameters();
        List<Integer> cuts = new ArrayList<>();
        cuts.add(perLayer.length);
        long held = 0;
        for (int j = perLayer.length - 1; j > 0; j--) {
            held += perLayer[j];
            if (held >= bucketFloats) {
                cuts.add(0, j);
                held = 0;
            }
        }
        cuts.add(0, 0);
        return new BucketedBackward(stage, cuts);
    }

    /**
     * Returns the number of buckets.
     *
     * @return 1 when the whole model is one bucket
     */
    public int buckets() {
        return arrays.length;
    }

    /**
     * Returns where a bucket's gradients start in the model's flat gradients.
     *
     * @param bucket the bucket, from the input side
     * @return the offset; {@code offset(buckets())} is the parameter count
     */
    public int offset(int bucket) {
        return offsets[bucket];
    }

    /**
     * Runs forward and backward on one batch through the whole model, replacing the gradients,
     * and hands each bucket's gradients to {@code sink} as soon as its backward is done.
     *
     * @param features {@code [B, inputs]} float32, borrowed
     * @param labels {@code [B]} classes or targets, borrowed
     * @param sink takes each bucket, the last layers' first
     * @return the batch's mean loss
     */
    public float trainBatch(NDArray features, NDArray labels, BucketSink sink) {
        ModelSpecChecks.requireBatch(stage.spec(), features, labels);
        int n = buckets();
        return GradMode.run(true, () -> {
            try (NDManager scope = stage.manager().newSubManager()) {
                features.tempAttach(scope);
                labels.tempAttach(scope);
                stage.zeroGradients();
                NDArray[] outs = new NDArray[n];
                NDArray[] leaves = new NDArray[n];
                NDArray x = features;
                for (int b = 0; b < n; b++) {
                    outs[b] = stage.network().forward(x, blockCuts[b],
                            blockCuts[b + 1]);
                    if (b < n - 1) {
                        leaves[b] = outs[b].stopGradient();
                        leaves[b].setRequiresGradient(true);
                        x = leaves[b];
                    }
                }
                float loss = stage.training().backwardLoss(outs[n - 1], labels, scope,
                        1f);
                hand(n - 1, sink);
                for (int b = n - 2; b >= 0; b--) {
                    try (NDArray g = leaves[b].getGradient()) {
                        NDArray dot = outs[b].mul(g).sum();
                        JniUtils.backward((PtNDArray) dot, (PtNDArray) scope.ones(
                                dot.getShape()), false, false);
                    }
                    hand(b, sink);
                }
                return loss;
            }
        });
    }

    private void hand(int bucket, BucketSink sink) {
        float[] a = sink.arrayFor(bucket, length(bucket));
        if (a == null) {
            if (arrays[bucket] == null) {
                arrays[bucket] = new float[length(bucket)];
            }
            a = arrays[bucket];
        }
        copyGradients(bucket, a);
        sink.ready(bucket, a);
    }

    /**
     * Returns a bucket's number of parameters (flat).
     *
     * @param bucket the bucket, from the input side
     * @return its length
     */
    public int length(int bucket) {
        return offsets[bucket + 1] - offsets[bucket];
    }

    /**
     * Copies a bucket's gradients, as the model holds them now, into the start of {@code dst}.
     *
     * @param bucket the bucket
     * @param dst at least {@link #length} floats
     */
    public void copyGradients(int bucket, float[] dst) {
        stage.buffers().copyGradients(parameterCuts[bucket], parameterCuts[bucket + 1],
                FloatBuffer.wrap(dst, 0, length(bucket)));
    }

    /**
     * Overwrites a bucket's parameters, in place, with the start of {@code src}: the
     * parameters gathered bucket by bucket (ZeRO-2) without a whole flat array.
     *
     * @param bucket the bucket
     * @param src at least {@link #length} floats
     */
    public void setParameters(int bucket, float[] src) {
        stage.buffers().setParameters(parameterCuts[bucket], parameterCuts[bucket + 1],
                FloatBuffer.wrap(src, 0, length(bucket)));
    }
}
