package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The learning-rate schedules' values, and one update with weight decay, gradient clipping
 * and a scheduled rate against a hand computation, on the host path and on the device path
 * (staged through the host, as on a GPU).
 */
class UpdateRulesTest extends OnPyTorch {

    /** mlp(4 inputs, 2 classes, 3 hidden): W1 [3,4], b1 [3], W2 [2,3], b2 [2]. */
    private static final ModelSpec SPEC = ModelSpec.mlp(4, 2, 3).withSeed(5);
    private static final boolean[] WEIGHT = weights();

    private static boolean[] weights() {
        boolean[] w = new boolean[12 + 3 + 6 + 2];
        for (int i = 0; i < w.length; i++) {
            w[i] = i < 12 || (i >= 15 && i < 21);
        }
        return w;
    }

    @Test
    void scheduleValuesAtGivenSteps() {
        assertEquals(1.0, LearningRateSchedule.constant().factor(1234));
        LearningRateSchedule step = new LearningRateSchedule.StepDecay(2, 0.5, 10);
        assertEquals(1.0, step.factor(0));
        assertEquals(1.0, step.factor(19), "epoch 1 is before the first decay");
        assertEquals(0.5, step.factor(20), "epoch 2");
        assertEquals(0.25, step.factor(45), "epoch 4");
        LearningRateSchedule cos = new LearningRateSchedule.Cosine(0, 100);
        assertEquals(1.0, cos.factor(0), 1e-12);
        assertEquals(0.5, cos.factor(50), 1e-12);
        assertEquals((1 + Math.cos(Math.PI * 0.25)) / 2, cos.factor(25), 1e-12);
        assertEquals(0.0, cos.factor(100), 1e-12);
        LearningRateSchedule warm = new LearningRateSchedule.Warmup(10,
                new LearningRateSchedule.Cosine(10, 110));
        assertEquals(0.1, warm.factor(0), 1e-12, "warm-up starts near 0, not at 0");
        assertEquals(0.5, warm.factor(4), 1e-12);
        assertEquals(1.0, warm.factor(9), 1e-12);
        assertEquals(1.0, warm.factor(10), 1e-12, "the cosine starts after the warm-up");
        assertEquals(0.5, warm.factor(60), 1e-12);
        OptimizerSpec adam = OptimizerSpec.adam(0.01f).withSchedule(step);
        assertEquals(0.005f, adam.learningRateAt(20), 1e-9);
        assertNotEquals(OptimizerSpec.adam(0.01f), adam);
        assertThrows(IllegalArgumentException.class,
                () -> new LearningRateSchedule.StepDecay(0, 0.5, 10));
    }

    /** Parameter {@code i} after one step from parameters {@code p} and gradients {@code g}. */
    private interface Expected {
        double after(int i, float[] p, float[] g);
    }

    /** On both paths, one step from seeded gradients of norm 1 moves each parameter as expected. */
    private void assertOneStep(OptimizerSpec opt, long seed, Expected expected) {
        for (boolean staged : new boolean[] {false, true}) {
            try (ModelStage m = open(opt, staged)) {
                float[] p = m.parameters();
                float[] g = gradients(m, 1.0, seed);
                m.step();
                float[] after = m.parameters();
                for (int i = 0; i < p.length; i++) {
                    assertEquals(expected.after(i, p, g), after[i], 1e-6,
                            "parameter " + i + " staged=" + staged);
                }
            }
        }
    }

    @Test
    void sgdWeightDecayIsL2OnWeightsOnlyOnBothPaths() {
        float lr = 0.1f;
        float wd = 0.5f;
        assertOneStep(OptimizerSpec.sgd(lr, 0f).withWeightDecay(wd), 1,
                (i, p, g) -> p[i] - lr * (g[i] + (WEIGHT[i] ? wd * p[i] : 0f)));
    }

    @Test
    void adamWeightDecayIsDecoupledOnBothPaths() {
        float lr = 0.01f;
        float wd = 0.1f;
        assertOneStep(OptimizerSpec.adam(lr).withWeightDecay(wd), 2, (i, p, g) -> {
            // step 1: the bias-corrected moments are g and g^2, so Adam moves by lr sign(g)
            double decayed = WEIGHT[i] ? p[i] * (1 - lr * wd) : p[i];
            return decayed - lr * g[i] / (Math.abs(g[i]) + 1e-8);
        });
    }

    @Test
    void clippingScalesTheGlobalNormDownToTheLimitOnly() {
        for (boolean staged : new boolean[] {false, true}) {
            float c = 0.5f;
            try (ModelStage m = open(OptimizerSpec.sgd(1f, 0f).withClipNorm(c), staged)) {
                float[] p = m.parameters();
                float[] g = gradients(m, 3.0, 3); // norm 3, above the limit
                m.step();
                float[] moved = difference(p, m.parameters());
                assertEquals(c, norm(moved), 1e-5, "norm after clipping, staged=" + staged);
                for (int i = 0; i < g.length; i++) {
                    assertEquals(g[i] * c / 3.0, moved[i], 1e-6, "same direction");
                }
                p = m.parameters();
                g = gradients(m, 0.1, 4); // below the limit: untouched
                m.step();
                moved = difference(p, m.parameters());
                for (int i = 0; i < g.length; i++) {
                    assertEquals(g[i], moved[i], 1e-6, "unclipped gradient " + i);
                }
            }
        }
    }

    @Test
    void theScheduledRateFollowsTheGlobalStepAcrossASavedState() {
        LearningRateSchedule s = new LearningRateSchedule.Warmup(2,
                new LearningRateSchedule.Cosine(2, 6));
        OptimizerSpec opt = OptimizerSpec.sgd(1f, 0f).withSchedule(s);
        for (boolean staged : new boolean[] {false, true}) {
            byte[] state;
            try (ModelStage m = open(opt, staged)) {
                for (int t = 0; t < 3; t++) {
                    assertEquals(s.factor(t), rateOfOneStep(m, t), 1e-5, "step " + t);
                }
                state = m.saveState();
            }
            try (ModelStage resumed = open(opt, staged)) {
                resumed.loadState(state);
                for (int t = 3; t < 6; t++) {
                    assertEquals(s.factor(t), rateOfOneStep(resumed, t), 1e-5, "step " + t);
                }
            }
        }
    }

    /** The rate of one SGD step without momentum: how far it moves a unit gradient. */
    private float rateOfOneStep(ModelStage m, int seed) {
        float[] p = m.parameters();
        float[] g = gradients(m, 1.0, 10 + seed);
        m.step();
        float[] moved = difference(p, m.parameters());
        return (float) (norm(moved) / norm(g));
    }

    private ModelStage open(OptimizerSpec opt, boolean staged) {
        ModelStage m = staged ? ModelStage.openStaged(SPEC, opt, "t/staged", Precision.FP32)
                : ModelStage.openWhole(SPEC, opt, "t/host");
        // a batch makes the gradient tensors; the tests then set their own gradients
        m.trainBatch(features(8, 4, 1), classes(8, 2,
                2));
        return m;
    }

    /** Sets random gradients of global L2 norm {@code norm}; returns them. */
    private static float[] gradients(ModelStage m, double norm, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] g = new float[m.parameterCount()];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) (r.nextDouble() * 2 - 1);
        }
        double scale = norm / norm(g);
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) (g[i] * scale);
        }
        m.setGradients(g);
        return g;
    }

    private static float[] difference(float[] before, float[] after) {
        float[] d = new float[before.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = before[i] - after[i];
        }
        return d;
    }

    private static double norm(float[] v) {
        double s = 0;
        for (float x : v) {
            s += (double) x * x;
        }
        return Math.sqrt(s);
    }
}
