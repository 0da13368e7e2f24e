package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.dml.DmlException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A whole model: its initialisation, batch step, gradients, state and predictions. */
class ModelStageTest extends OnPyTorch {

    @Test
    void sameSeedGivesBitwiseIdenticalParameters() {
        ModelSpec spec = ModelSpec.mlp(12, 3, 16, 8).withSeed(7);
        try (ModelStage a = ModelStage.openWhole(spec, OptimizerSpec.adam(1e-3f), "t/0");
                ModelStage b = ModelStage.openWhole(spec, OptimizerSpec.adam(1e-3f), "t/1");
                ModelStage c = ModelStage.openWhole(spec.withSeed(8),
                        OptimizerSpec.adam(1e-3f), "t/2")) {
            float[] pa = a.parameters();
            assertEquals(12 * 16 + 16 + 16 * 8 + 8 + 8 * 3 + 3, pa.length);
            assertArrayEquals(pa, b.parameters());
            assertFalse(Arrays.equals(pa, c.parameters()));
        }
    }

    @Test
    void cnnBuildsAndInitialisesDeterministically() {
        ModelSpec spec = ModelSpec.cnn(10);
        try (ModelStage a = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0.9f), "t/0");
                ModelStage b = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0.9f), "t/1")) {
            assertArrayEquals(a.parameters(), b.parameters());
            NDArray x = features(4, 784, 1);
            NDArray y = classes(4, 10, 2);
            float loss = a.trainBatch(x, y);
            assertTrue(loss > 0 && loss < 20, "loss " + loss);
        }
    }

    @Test
    void gradientOfDoubleBatchIsMeanOfHalves() {
        ModelSpec spec = ModelSpec.mlp(10, 4, 32);
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "t/0")) {
            NDArray x = features(64, 10, 3);
            NDArray y = classes(64, 4, 4);
            r.trainBatch(x, y);
            float[] full = r.gradients();
            r.trainBatch(x.get(new NDIndex("0:32")), y.get(new NDIndex("0:32")));
            float[] g1 = r.gradients();
            r.trainBatch(x.get(new NDIndex("32:64")), y.get(new NDIndex("32:64")));
            float[] g2 = r.gradients();
            double maxAbs = 0;
            double largest = 0;
            for (int i = 0; i < full.length; i++) {
                largest = Math.max(largest, Math.abs(full[i]));
                float avg = (g1[i] + g2[i]) / 2;
                maxAbs = Math.max(maxAbs, Math.abs(full[i] - avg));
            }
            assertTrue(largest > 1e-3, "gradients are all ~0: " + largest);
            assertTrue(maxAbs < 1e-6, "max difference " + maxAbs);
        }
    }

    @Test
    void flatGradientWriteBackRoundTrips() {
        ModelSpec spec = ModelSpec.mlp(6, 3, 5);
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.5f, 0f), "t/0")) {
            r.trainBatch(features(8, 6, 5), classes(8, 3, 6));
            int n = r.parameterCount();
            FloatBuffer direct = ByteBuffer.allocateDirect(n * 4).order(ByteOrder.nativeOrder())
                    .asFloatBuffer();
            r.copyGradients(direct);
            direct.flip();
            float[] halved = new float[n];
            for (int i = 0; i < n; i++) {
                halved[i] = direct.get(i) / 2;
                direct.put(i, halved[i]);
            }
            r.setGradients(direct);
            assertArrayEquals(halved, r.gradients());
            float[] before = r.parameters();
            r.step();
            float[] after = r.parameters();
            for (int i = 0; i < n; i++) {
                assertEquals(before[i] - 0.5f * halved[i], after[i], 1e-7f);
            }
        }
    }

    @Test
    void parametersRoundTripAndRejectWrongLength() {
        ModelSpec spec = ModelSpec.logisticRegression(4, 2);
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.adam(0.01f), "t/0")) {
            float[] p = new float[r.parameterCount()];
            for (int i = 0; i < p.length; i++) {
                p[i] = i * 0.25f;
            }
            r.setParameters(p);
            assertArrayEquals(p, r.parameters());
            DmlException e = assertThrows(DmlException.class, () -> r.setParameters(new float[3]));
            assertTrue(e.getMessage().contains("holds 3 floats"), e.getMessage());
        }
    }

    @Test
    void savedStateResumesBitwise() {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16);
        NDArray x = features(32, 8, 9);
        NDArray y = classes(32, 3, 10);
        byte[] saved;
        float[] expected;
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.adam(0.01f), "t/0")) {
            for (int i = 0; i < 3; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            saved = r.saveState();
            for (int i = 0; i < 3; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            expected = r.parameters();
        }
        try (ModelStage r = ModelStage.openWhole(spec.withSeed(99),
                OptimizerSpec.adam(0.01f), "t/1")) {
            assertThrows(DmlException.class, () -> r.loadState(saved));
        }
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.adam(0.01f), "t/1")) {
            r.loadState(saved);
            assertEquals(3, r.steps());
            for (int i = 0; i < 3; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            assertArrayEquals(expected, r.parameters());
        }
    }

    @Test
    void stepsDoNotLeakArrays() {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16);
        NDArray x = features(32, 8, 11);
        NDArray y = classes(32, 3, 12);
        int callerBefore = manager.getManagedArrays().size();
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.adam(0.01f), "t/0")) {
            r.trainBatch(x, y);
            r.step();
            int before = r.manager().getManagedArrays().size();
            for (int i = 0; i < 5; i++) {
                r.trainBatch(x, y);
                r.copyGradients(FloatBuffer.allocate(r.parameterCount()));
                r.step();
                r.score(x, y).loss();
                r.predict(x);
            }
            assertEquals(before, r.manager().getManagedArrays().size());
        }
        assertEquals(callerBefore, manager.getManagedArrays().size());
    }

    @Test
    void replicasTrainConcurrentlyInOneJvm() throws Exception {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<float[]> a = pool.submit(() -> trainFewSteps(spec, "t/0"));
            Future<float[]> b = pool.submit(() -> trainFewSteps(spec, "t/1"));
            assertArrayEquals(a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS));
        } finally {
            pool.shutdownNow();
        }
    }

    private float[] trainFewSteps(ModelSpec spec, String name) {
        try (NDManager m = NDManager.newBaseManager("PyTorch");
                ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0.9f), name)) {
            Random rnd = new Random(1);
            float[] v = new float[32 * 8];
            int[] c = new int[32];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) rnd.nextGaussian();
            }
            for (int i = 0; i < c.length; i++) {
                c[i] = rnd.nextInt(3);
            }
            NDArray x = m.create(v, new Shape(32, 8));
            NDArray y = m.create(c);
            for (int i = 0; i < 20; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            return r.parameters();
        }
    }

    @Test
    void wrongFeatureWidthIsExplained() {
        try (ModelStage r = ModelStage.openWhole(ModelSpec.logisticRegression(5, 2),
                OptimizerSpec.sgd(0.1f, 0f), "t/0")) {
            DmlException e = assertThrows(DmlException.class,
                    () -> r.trainBatch(features(4, 6, 1), classes(4, 2, 1)));
            assertTrue(e.what().contains("[B, 5]"), e.what());
            assertTrue(e.hint().contains("setInputs(6)"), e.hint());
        }
    }

    @Test
    void linearRegressionWithL2FitsALine() {
        // y = 2 x0 - 3 x1 + 1, no noise: plain SGD must find it.
        NDArray x = features(256, 2, 21);
        float[] xv = x.toFloatArray();
        float[] yv = new float[256];
        for (int i = 0; i < 256; i++) {
            yv[i] = 2 * xv[2 * i] - 3 * xv[2 * i + 1] + 1;
        }
        NDArray y = manager.create(yv);
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.LOGISTIC_REGRESSION)
                .setInputs(2).setOutputs(1).build();
        assertEquals(Objective.L2, spec.objective());
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0.5f), "t/0")) {
            for (int i = 0; i < 200; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            assertTrue(r.score(x, y).loss() < 1e-6, "loss " + r.score(x, y).loss());
            float[] p = r.parameters(); // weight [1, 2], then bias [1]
            assertEquals(2f, p[0], 1e-3f);
            assertEquals(-3f, p[1], 1e-3f);
            assertEquals(1f, p[2], 1e-3f);
        }
    }

    @Test
    void sigmoidBinaryCrossEntropyLearnsASign() {
        NDArray x = features(512, 3, 31);
        float[] xv = x.toFloatArray();
        int[] yv = new int[512];
        for (int i = 0; i < 512; i++) {
            yv[i] = xv[3 * i] > 0 ? 1 : 0;
        }
        NDArray y = manager.create(yv);
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(3).setOutputs(1)
                .addHidden(8).optObjective(Objective.SIGMOID_BINARY_CROSS_ENTROPY).build();
        try (ModelStage r = ModelStage.openWhole(spec, OptimizerSpec.adam(0.05f), "t/0")) {
            float first = r.score(x, y).loss();
            for (int i = 0; i < 100; i++) {
                r.trainBatch(x, y);
                r.step();
            }
            assertTrue(r.score(x, y).loss() < first / 4, first + " -> " + r.score(x, y).loss());
            float[] p = r.predict(x);
            assertEquals(512, p.length);
            int ok = 0;
            for (int i = 0; i < 512; i++) {
                ok += (p[i] > 0.5f ? 1 : 0) == yv[i] ? 1 : 0;
            }
            assertTrue(ok > 490, "correct " + ok);
        }
    }
}
