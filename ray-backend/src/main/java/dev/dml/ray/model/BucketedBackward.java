package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import dev.dml.events.StepPhase;
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
         * Whether a bucket's gradients are copied into an array for {@link #ready}, one per
         * bucket and kept across steps; if not, {@link #ready} gets null and reads them from
         * the model itself ({@link #gradients}), as ZeRO-2 does.
         *
         * @return true unless the sink reads the model
         */
        default boolean copies() {
            return true;
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
                StepClock clock = stage.clock();
                long t = clock.now();
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
                clock.lap(StepPhase.FORWARD, t);
                float loss = stage.training().backwardLoss(outs[n - 1], labels, scope,
                        1f);
                hand(n - 1, sink);
                for (int b = n - 2; b >= 0; b--) {
                    t = clock.now();
                    try (NDArray g = leaves[b].getGradient()) {
                        NDArray dot = outs[b].mul(g).sum();
                        JniUtils.backward((PtNDArray) dot, (PtNDArray) scope.ones(
                                dot.getShape()), false, false);
                    }
                    clock.lap(StepPhase.BACKWARD, t);
                    hand(b, sink);
                }
                return loss;
            }
        });
    }

    private void hand(int bucket, BucketSink sink) {
        if (!sink.copies()) {
            sink.ready(bucket, null);
            return;
        }
        if (arrays[bucket] == null) {
            arrays[bucket] = new float[offsets[bucket + 1] - offsets[bucket]];
        }
        float[] a = arrays[bucket];
        long t = stage.clock().now();
        stage.buffers().copyGradients(parameterCuts[bucket], parameterCuts[bucket + 1],
                FloatBuffer.wrap(a));
        stage.clock().lap(StepPhase.COPIES, t);
        sink.ready(bucket, a);
    }

    /**
     * Views of a bucket's gradients as the model holds them now, by flat index: valid for
     * this step.
     *
     * @param bucket the bucket, from the input side
     * @return the views, from {@link #offset}{@code (bucket)} to the next bucket's
     */
    public FlatViews gradients(int bucket) {
        return stage.buffers().views(parameterCuts[bucket], parameterCuts[bucket + 1], true);
    }

    /**
     * Views of a bucket's parameters by flat index, to write the gathered ones in place.
     *
     * @param bucket the bucket, from the input side
     * @return the views
     */
    public FlatViews parameters(int bucket) {
        return stage.buffers().views(parameterCuts[bucket], parameterCuts[bucket + 1], false);
    }
}
