package dev.dml.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * P16: a training step alone ({@code trainBatch} and the Adam step, one PyTorch thread) with
 * Adam in SIMD lanes over the same step with Adam's scalar loop, for P3's MLP and CNN at batch
 * 128, in rounds that alternate the two (smaller is better; the larger of the two models'
 * ratios). The scalar side is opened with {@code -Ddml.optimizer.simd=false} in effect; both
 * give bitwise the same parameters ({@code VectorAdamTest}).
 */
final class SimdOptimizerSpeedup implements Benchmark {

    static final double GOAL = 0.8;
    static final int ROUNDS = 5;
    static final int STEPS = 30;
    static final int BATCH = 128;
    private static final String PROPERTY = "dml.optimizer.simd";

    @Override
    public BenchResult run(String command) {
        Map<String, ModelSpec> models = new LinkedHashMap<>();
        models.put("mlp", ModelSpec.mlp(784, 10, 1024, 1024));
        models.put("cnn", ModelSpec.cnn(10));
        BenchResult result = new BenchResult("P16", GOAL, command).optSmallerIsBetter();
        double worst = 0;
        try (NDManager m = NDManager.newBaseManager("PyTorch")) {
            for (Map.Entry<String, ModelSpec> e : models.entrySet()) {
                ModelSpec spec = e.getValue();
                Random r = new Random(16);
                float[] v = new float[BATCH * spec.inputs()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) r.nextGaussian();
                }
                int[] y = new int[BATCH];
                for (int i = 0; i < y.length; i++) {
                    y[i] = r.nextInt(spec.outputs());
                }
                NDArray x = m.create(v, new Shape(BATCH, spec.inputs()));
                NDArray labels = m.create(y);
                List<Double> simd = new ArrayList<>();
                List<Double> scalar = new ArrayList<>();
                for (int round = -1; round < ROUNDS; round++) {
                    // alternate which side goes first, so neither always follows the other
                    boolean simdFirst = round % 2 == 0;
                    for (boolean lanes : new boolean[] {simdFirst, !simdFirst}) {
                        double t = steps(spec, lanes, x, labels);
                        if (round >= 0) {
                            (lanes ? simd : scalar).add(t);
                        }
                        System.out.printf("P16 %s round %d %s: %.2f ms/step%n", e.getKey(),
                                round, lanes ? "simd" : "scalar", t);
                    }
                }
                double ratio = MlpJobs.median(simd) / MlpJobs.median(scalar);
                worst = Math.max(worst, ratio);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("model", spec.toString());
                row.put("ratio", TrialTimes.round(ratio, 3));
                row.put("simd_ms_per_step", MlpJobs.series("ms per step, Adam in SIMD lanes",
                        simd, 2));
                row.put("scalar_ms_per_step", MlpJobs.series("ms per step, Adam's scalar loop",
                        scalar, 2));
                result.put(e.getKey(), row);
            }
        } finally {
            System.clearProperty(PROPERTY);
        }
        return result.setRatio(worst)
                .put("ratio_is", "median ms of a step alone (trainBatch + Adam step) with Adam"
                        + " in SIMD lanes / with its scalar loop, the larger of the MLP's and"
                        + " the CNN's; rounds alternate the two")
                .put("batch", BATCH)
                .put("steps_per_sample", STEPS);
    }

    /** Mean ms per step over {@link #STEPS} steps of a fresh stage, after two warm-up steps. */
    private static double steps(ModelSpec spec, boolean lanes, NDArray x, NDArray y) {
        System.setProperty(PROPERTY, Boolean.toString(lanes));
        try (ModelStage stage = ModelStage.openWhole(spec, OptimizerSpec.adam(1e-3f),
                "p16/" + (lanes ? "simd" : "scalar"))) {
            for (int i = 0; i < 2; i++) {
                stage.trainBatch(x, y);
                stage.step();
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < STEPS; i++) {
                stage.trainBatch(x, y);
                stage.step();
            }
            return (System.nanoTime() - t0) / 1e6 / STEPS;
        }
    }
}
