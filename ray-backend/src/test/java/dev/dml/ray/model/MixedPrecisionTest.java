package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Parameter;
import org.junit.jupiter.api.Test;

/**
 * {@code --precision} at the model, run on the CPU (jobs refuse fp16 without GPUs, where it
 * is slow, but its logic is the same): fp16 runs the products in half floats while the
 * parameters, gradients and optimizer stay float32, and trains as float32 does; its loss scale
 * unscales the gradients, skips a step that overflowed, grows, and resumes exactly from a saved
 * state. bf16 is refused before DJL's engine is asked for a bfloat16 tensor.
 */
class MixedPrecisionTest extends OnPyTorch {

    /** The small MLP most loss-scale tests train: 8 features, 3 classes, 16 hidden. */
    private static final ModelSpec SMALL = ModelSpec.mlp(8, 3, 16);

    private static ModelStage open(ModelSpec spec, OptimizerSpec opt, Precision p) {
        return ModelStage.open(spec, opt, 0, spec.layerCount(), "t/" + p, Device.cpu(), p);
    }

    /** {@link #SMALL} with Adam, in fp16. */
    private static ModelStage openSmallFp16() {
        return open(SMALL, OptimizerSpec.adam(0.01f), Precision.FP16);
    }

    /** Trains {@code m} for {@code n} steps on the same batch. */
    private static void steps(ModelStage m, NDArray x, NDArray y, int n) {
        for (int i = 0; i < n; i++) {
            m.trainBatch(x, y);
            m.step();
        }
    }

    /** Two classes: whether the first two features add up to more than zero. */
    private NDArray separable(NDArray x) {
        float[] v = x.toFloatArray();
        int cols = (int) x.getShape().get(1);
        int[] y = new int[v.length / cols];
        for (int i = 0; i < y.length; i++) {
            y[i] = v[i * cols] + v[i * cols + 1] > 0 ? 1 : 0;
        }
        return manager.create(y);
    }

    /** Sets one gradient to a value that is no number, as an overflowed all-reduce leaves it. */
    private static void poison(ModelStage m, int index, float value) {
        float[] g = m.gradients();
        g[index] = value;
        m.setGradients(g);
    }

    private static boolean finite(float[] a) {
        for (float f : a) {
            if (!Float.isFinite(f)) {
                return false;
            }
        }
        return true;
    }

    private static double maxRelativeError(float[] expected, float[] actual) {
        double scale = 0;
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            scale = Math.max(scale, Math.abs(expected[i]));
            worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
        }
        return worst / scale;
    }

    @Test
    void fp16RunsTheProductsInHalfFloatsAndKeepsFloat32Gradients() {
        ModelSpec spec = ModelSpec.mlp(16, 3, 64, 32);
        NDArray x = features(64, 16, 1);
        NDArray y = classes(64, 3, 2);
        try (ModelStage fp32 = open(spec, OptimizerSpec.adam(0.01f), Precision.FP32);
                ModelStage fp16 = open(spec, OptimizerSpec.adam(0.01f), Precision.FP16)) {
            assertArrayEquals(fp32.parameters(), fp16.parameters());
            float exact = fp32.trainBatch(x, y);
            float low = fp16.trainBatch(x, y);
            assertEquals(exact, low, 0.01, "the loss");
            assertTrue(exact != low, "the products did not run in half floats");
            for (Parameter p : fp16.buffers().parameters()) {
                assertEquals(DataType.FLOAT32, p.getArray().getDataType());
                try (NDArray grad = p.getArray().getGradient()) {
                    assertEquals(DataType.FLOAT32, grad.getDataType());
                }
            }
        }
    }

    @Test
    void fp16TrainsAsFloat32Does() {
        ModelSpec spec = ModelSpec.mlp(8, 2, 32);
        NDArray x = features(256, 8, 3);
        NDArray y = separable(x);
        float[] last = new float[2];
        Precision[] kinds = {Precision.FP32, Precision.FP16};
        for (int k = 0; k < 2; k++) {
            try (ModelStage m = open(spec, OptimizerSpec.adam(0.01f), kinds[k])) {
                float first = m.trainBatch(x, y);
                m.step();
                for (int i = 0; i < 80; i++) {
                    last[k] = m.trainBatch(x, y);
                    m.step();
                }
                assertTrue(last[k] < first / 3, kinds[k] + " did not learn: " + first + " -> "
                        + last[k]);
                assertEquals(0, m.skippedSteps());
            }
        }
        assertEquals(last[0], last[1], 0.02, "fp16's loss strays from float32's");
    }

    @Test
    void fp16ConvolutionsRun() {
        ModelSpec spec = ModelSpec.cnn(2);
        NDArray x = features(4, 28 * 28, 4);
        NDArray y = classes(4, 2, 5);
        try (ModelStage fp32 = open(spec, OptimizerSpec.adam(0.01f), Precision.FP32);
                ModelStage fp16 = open(spec, OptimizerSpec.adam(0.01f), Precision.FP16)) {
            float exact = fp32.trainBatch(x, y);
            float[] g = fp32.gradients();
            // the initial scale overflows this model's half-float gradients: the scale halves,
            // skipping steps, until they fit
            float[] gl;
            int skipped = 0;
            while (true) {
                assertEquals(exact, fp16.trainBatch(x, y), 0.02);
                gl = fp16.gradients();
                if (finite(gl)) {
                    break;
                }
                fp16.step();
                assertEquals(++skipped, fp16.skippedSteps());
                assertTrue(skipped < 30, "the scale never fitted");
            }
            assertEquals(LossScale.INITIAL / (1 << skipped), fp16.lossScale().scale());
            for (int i = 0; i < gl.length; i++) {
                gl[i] /= fp16.lossScale().scale();
            }
            double dot = 0;
            double gg = 0;
            double ll = 0;
            for (int i = 0; i < g.length; i++) {
                dot += (double) g[i] * gl[i];
                gg += (double) g[i] * g[i];
                ll += (double) gl[i] * gl[i];
            }
            double cosine = dot / Math.sqrt(gg * ll);
            assertTrue(cosine > 0.99 && cosine < 1 - 1e-9, "convolution gradients: " + cosine);
        }
    }

    @Test
    void fp16BackwardInBucketsGivesTheWholeBackwardsScaledGradients() {
        ModelSpec spec = ModelSpec.mlp(20, 4, 32, 16);
        NDArray x = features(24, 20, 18);
        NDArray y = classes(24, 4, 19);
        try (ModelStage whole = open(spec, OptimizerSpec.sgd(0.1f, 0f), Precision.FP16);
                ModelStage cut = open(spec, OptimizerSpec.sgd(0.1f, 0f), Precision.FP16)) {
            float loss = whole.trainBatch(x, y);
            BucketedBackward b = BucketedBackward.of(cut, 100);
            assertTrue(b.buckets() > 1);
            float[] got = new float[cut.parameterCount()];
            float lossCut = b.trainBatch(x, y, (bucket, grads) -> System.arraycopy(grads, 0, got,
                    b.offset(bucket), grads.length));
            assertEquals(loss, lossCut, 0f, "the same forward");
            assertArrayEquals(whole.gradients(), got, "half floats cast back exactly at cuts");
        }
    }

    @Test
    void fp16StepsDoNotLeakArrays() {
        NDArray x = features(32, 8, 16);
        NDArray y = classes(32, 3, 17);
        try (ModelStage m = openSmallFp16()) {
            steps(m, x, y, 1);
            int before = m.manager().getManagedArrays().size();
            for (int i = 0; i < 5; i++) {
                m.trainBatch(x, y);
                m.step();
                m.score(x, y);
                m.saveState();
            }
            assertEquals(before, m.manager().getManagedArrays().size());
        }
    }

    @Test
    void bf16IsRefusedBeforeTheEngineIsAskedForIt() {
        ModelSpec spec = ModelSpec.mlp(8, 2, 16);
        dev.dml.DmlException e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.dml.DmlException.class,
                () -> open(spec, OptimizerSpec.adam(0.01f), Precision.BF16));
        assertTrue(e.getMessage().contains("bfloat16"), e.getMessage());
    }

    @Test
    void fp16UnscalesTheGradientsBeforeTheUpdate() {
        NDArray x = features(32, 8, 8);
        NDArray y = classes(32, 3, 9);
        OptimizerSpec sgd = OptimizerSpec.sgd(1f, 0f); // an update of exactly -gradient
        try (ModelStage fp32 = open(SMALL, sgd, Precision.FP32);
                ModelStage fp16 = open(SMALL, sgd, Precision.FP16)) {
            fp32.trainBatch(x, y);
            fp16.trainBatch(x, y);
            float[] g = fp32.gradients();
            float[] scaled = fp16.gradients();
            float[] unscaled = new float[scaled.length];
            for (int i = 0; i < scaled.length; i++) {
                unscaled[i] = scaled[i] / LossScale.INITIAL;
            }
            double err = maxRelativeError(g, unscaled);
            assertTrue(err > 1e-6 && err < 0.01, "fp16 gradients x scale: " + err);
            float[] before = fp16.parameters();
            fp16.step();
            float[] after = fp16.parameters();
            float[] update = new float[before.length];
            for (int i = 0; i < before.length; i++) {
                update[i] = before[i] - after[i];
            }
            assertTrue(maxRelativeError(g, update) < 0.01, "the update was not unscaled");
            assertEquals(0, fp16.skippedSteps());
        }
    }

    @Test
    void fp16SkipsAStepWhoseGradientsOverflowedAndHalvesTheScale() {
        NDArray x = features(32, 8, 10);
        NDArray y = classes(32, 3, 11);
        try (ModelStage m = openSmallFp16()) {
            m.trainBatch(x, y);
            poison(m, m.parameterCount() / 2, Float.POSITIVE_INFINITY);
            float[] before = m.parameters();
            m.step();
            assertArrayEquals(before, m.parameters(), "a step with an infinity was taken");
            assertEquals(0, m.steps());
            assertEquals(1, m.skippedSteps());
            assertEquals(LossScale.INITIAL / 2, m.lossScale().scale());
            steps(m, x, y, 1);
            assertEquals(1, m.steps());
            assertFalse(java.util.Arrays.equals(before, m.parameters()));
        }
    }

    @Test
    void theScaleGrowsAfterItsIntervalOfGoodSteps() {
        NDArray x = features(32, 8, 12);
        NDArray y = classes(32, 3, 13);
        try (ModelStage m = openSmallFp16()) {
            LossScale scale = new LossScale(8f, 2);
            m.trainBatch(x, y);
            assertTrue(scale.unscale(m.buffers()));
            assertEquals(8f, scale.scale());
            assertTrue(scale.unscale(m.buffers()));
            assertEquals(16f, scale.scale());
            poison(m, 0, Float.NaN);
            assertFalse(scale.unscale(m.buffers()));
            assertEquals(8f, scale.scale());
            assertEquals(1, scale.skipped());
        }
    }

    @Test
    void fp16ResumesExactlyWithItsLossScale() {
        NDArray x = features(32, 8, 14);
        NDArray y = classes(32, 3, 15);
        byte[] saved;
        float[] expected;
        try (ModelStage m = openSmallFp16()) {
            m.trainBatch(x, y);
            poison(m, 0, Float.POSITIVE_INFINITY);
            m.step(); // skipped: the scale is no longer the initial one
            steps(m, x, y, 3);
            saved = m.saveState();
            steps(m, x, y, 3);
            expected = m.parameters();
        }
        try (ModelStage r = openSmallFp16()) {
            r.loadState(saved);
            assertEquals(LossScale.INITIAL / 2, r.lossScale().scale());
            assertEquals(1, r.skippedSteps());
            assertArrayEquals(saved, r.saveState());
            steps(r, x, y, 3);
            assertArrayEquals(expected, r.parameters());
        }
    }
}
