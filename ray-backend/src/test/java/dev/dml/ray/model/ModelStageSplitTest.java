package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A model split into stages computes exactly what the whole model does: same initial
 * parameters, same loss, same gradient of every parameter (micro-batches accumulated), same
 * parameters after a step. So does a whole model whose backward runs in buckets of layers
 * ({@link BucketedBackward}), bucket by bucket as the layers finish, last layers first.
 */
class ModelStageSplitTest extends OnPyTorch {

    private NDArray features(int rows, int cols) {
        Random r = new Random(11);
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return manager.create(v, new Shape(rows, cols));
    }

    private NDArray classes(int rows, int k) {
        Random r = new Random(12);
        int[] v = new int[rows];
        for (int i = 0; i < rows; i++) {
            v[i] = r.nextInt(k);
        }
        return manager.create(v);
    }

    /** Splits the model at {@code cuts}, runs one step on M micro-batches; checks all. */
    private void assertSplitEqualsWhole(ModelSpec spec, int[] layersPerStage, int micro,
            int rows) {
        assertEquals(spec.layerCount(), java.util.Arrays.stream(layersPerStage).sum());
        OptimizerSpec sgd = OptimizerSpec.sgd(0.1f, 0.9f);
        NDArray x = features(rows, spec.inputs());
        NDArray y = classes(rows, spec.outputs());
        List<ModelStage> stages = new ArrayList<>();
        try (ModelStage whole = ModelStage.openWhole(spec, sgd, "whole")) {
            int from = 0;
            for (int n : layersPerStage) {
                stages.add(ModelStage.open(spec, sgd, from, from + n, "stage/" + from));
                from += n;
            }
            float[] p0 = whole.parameters();
            assertArrayEquals(p0, concat(stages, ModelStage::parameters),
                    "the stages start from the whole model's parameters");
            assertEquals(0, stages.get(0).parameterOffset());
            float loss = whole.trainBatch(x, y);
            float[] g = whole.gradients();

            stages.forEach(st -> st.microBatches().beginStep());
            int b = rows / micro;
            double stagedLoss = 0;
            int k = stages.size();
            for (int m = 0; m < micro; m++) {
                NDIndex rowsOf = new NDIndex("{}:{}", m * b, (m + 1) * b);
                try (NDArray xm = x.get(rowsOf); NDArray ym = y.get(rowsOf)) {
                    byte[] act = null;
                    for (int s = 0; s < k - 1; s++) {
                        act = s == 0 ? stages.get(0).microBatches().forward(m, xm)
                                : stages.get(s).microBatches().forward(m, act);
                    }
                    ModelStage tail = stages.get(k - 1);
                    stagedLoss += tail.microBatches().forwardBackward(m, act, xm, ym,
                            1f / micro) / micro;
                    byte[] grad = tail.microBatches().inputGradient(m);
                    for (int s = k - 2; s >= 0; s--) {
                        grad = stages.get(s).microBatches().backward(m, grad);
                    }
                    assertNull(grad, "the first stage's input is data: no gradient");
                }
            }
            assertEquals(loss, stagedLoss, 1e-5, "loss");
            assertClose(g, concat(stages, ModelStage::gradients), 1e-4, 1e-6);
            whole.step();
            stages.forEach(ModelStage::step);
            assertClose(whole.parameters(), concat(stages, ModelStage::parameters), 1e-5,
                    1e-6);
        } finally {
            stages.forEach(ModelStage::close);
        }
    }

    private static float[] concat(List<ModelStage> stages,
            java.util.function.Function<ModelStage, float[]> part) {
        int n = 0;
        for (ModelStage s : stages) {
            n += s.parameterCount();
        }
        float[] out = new float[n];
        for (ModelStage s : stages) {
            float[] p = part.apply(s);
            System.arraycopy(p, 0, out, s.parameterOffset(), p.length);
        }
        return out;
    }

    static void assertClose(float[] expected, float[] actual, double rel, double abs) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(expected[i] - actual[i]);
            assertTrue(err <= abs + rel * Math.abs(expected[i]),
                    "value " + i + ": " + expected[i] + " vs " + actual[i]);
        }
    }

    @Test
    void mlpInThreeStagesEqualsTheWholeModel() {
        ModelSpec spec = ModelSpec.mlp(12, 3, 16, 8).withSeed(5);
        assertSplitEqualsWhole(spec, new int[] {1, 1, 1}, 1, 24);
    }

    @Test
    void mlpInTwoStagesWithFourMicroBatchesEqualsTheWholeBatch() {
        ModelSpec spec = ModelSpec.mlp(12, 3, 32, 16, 8).withSeed(6);
        assertSplitEqualsWhole(spec, new int[] {3, 1}, 4, 32);
    }

    @Test
    void cnnSplitsAcrossConvolutionsAndDense() {
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.CNN).setOutputs(10)
                .optConvChannels(4, 8).addHidden(16).build();
        assertEquals(4, spec.layerCount());
        assertSplitEqualsWhole(spec, new int[] {1, 2, 1}, 2, 8);
    }

    @Test
    void oneStageIsTheWholeModel() {
        assertSplitEqualsWhole(ModelSpec.mlp(6, 2, 4), new int[] {2}, 3, 12);
    }

    @Test
    void layerCostsCountParametersAndTime() {
        ModelSpec spec = ModelSpec.mlp(12, 3, 16, 8);
        try (ModelStage all = ModelStage.open(spec, OptimizerSpec.adam(1e-3f), 0, 3, "a")) {
            assertArrayEquals(new double[] {12 * 16 + 16, 16 * 8 + 8, 8 * 3 + 3},
                    all.layerCosts(null, 3));
            double[] ms = all.layerCosts(features(64, 12), 3);
            assertEquals(3, ms.length);
            for (double t : ms) {
                assertTrue(t > 0, "a layer took no time");
            }
        }
    }

    /** Runs one batch whole and in buckets on two replicas; returns the buckets as handed. */
    private List<Integer> assertBucketsEqualWhole(ModelSpec spec, NDArray x, long bucketFloats,
            int expectedBuckets) {
        NDArray y = classes((int) x.getShape().get(0), 10);
        try (ModelStage whole = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "w");
                ModelStage cut = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "c")) {
            float lossWhole = whole.trainBatch(x, y);
            BucketedBackward b = BucketedBackward.of(cut, bucketFloats);
            assertEquals(expectedBuckets, b.buckets());
            float[] got = new float[cut.parameterCount()];
            List<Integer> order = new ArrayList<>();
            float lossCut = b.trainBatch(x, y, (bucket, grads) -> {
                order.add(bucket);
                assertEquals(b.offset(bucket + 1) - b.offset(bucket), grads.length);
                System.arraycopy(grads, 0, got, b.offset(bucket), grads.length);
            });
            assertEquals(lossWhole, lossCut, 0f, "the same forward");
            assertEquals(cut.parameterCount(), b.offset(b.buckets()));
            float[] expected = whole.gradients();
            assertArrayEquals(expected, got, 1e-6f, "gradients handed out");
            assertArrayEquals(expected, cut.gradients(), 1e-6f, "gradients left in the model");
            return order;
        }
    }

    @Test
    void mlpBucketsFromTheOutputBackGiveTheWholeBackwardsGradients() {
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(20).setOutputs(10)
                .addHidden(32).addHidden(16).optSeed(4).build();
        NDArray x = features(24, 20);
        // layers hold 672, 528 and 170 parameters: cut into buckets of at least 100 from the
        // output back, each layer is a bucket; of 600, the last two make one
        assertEquals(List.of(2, 1, 0), assertBucketsEqualWhole(spec, x, 100, 3));
        assertEquals(List.of(1, 0), assertBucketsEqualWhole(spec, x, 600, 2));
        assertEquals(List.of(0), assertBucketsEqualWhole(spec, x, 1_000_000, 1));
    }

    @Test
    void cnnBucketsGiveTheWholeBackwardsGradients() {
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.CNN).setOutputs(10)
                .optConvChannels(4, 8).addHidden(16).build();
        List<Integer> order = assertBucketsEqualWhole(spec, features(6, 784), 1,
                spec.layerCount());
        assertEquals(spec.layerCount() - 1, order.get(0));
        assertEquals(0, order.get(order.size() - 1));
    }

    @Test
    void badLayerRangesSayHowToFix() {
        ModelSpec spec = ModelSpec.mlp(12, 3, 16);
        DmlException e = assertThrows(DmlException.class,
                () -> ModelStage.open(spec, OptimizerSpec.adam(1e-3f), 1, 3, "x"));
        assertTrue(e.getMessage().contains("2 layers"), e.getMessage());
    }
}
