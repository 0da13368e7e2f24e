package dev.dml.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.util.cuda.CudaUtils;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.model.Precision;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * P14: a worker's training step ({@code trainBatch} and the Adam step) with {@code --precision
 * fp16} over the same step in float32, on one device, in rounds that alternate the two
 * (smaller is better; goal {@value #GOAL}, what half-float products should give on a GPU). On a
 * machine without a CUDA GPU it runs on the CPU, a smaller model: there it shows why jobs refuse
 * fp16 without GPUs.
 */
final class MixedPrecisionSpeedup implements Benchmark {

    static final double GOAL = 0.7;
    static final int ROUNDS = 5;

    /** What one device trains: the model, the batch and the timed steps per precision. */
    private record Setting(Device device, ModelSpec spec, int batch, int fp32Steps,
            int fp16Steps) {}

    @Override
    public BenchResult run(String command) {
        boolean gpu = Engine.getEngine("PyTorch").hasCapability(StandardCapabilities.CUDA)
                && CudaUtils.getGpuCount() > 0;
        Setting s = gpu ? new Setting(Device.gpu(0), ModelSpec.mlp(1024, 10, 4096, 4096), 4096,
                50, 50) : new Setting(Device.cpu(), ModelSpec.mlp(784, 10, 1024, 1024), 256, 10,
                        2);
        Map<Precision, double[]> ms = new LinkedHashMap<>();
        ms.put(Precision.FP32, new double[ROUNDS]);
        ms.put(Precision.FP16, new double[ROUNDS]);
        try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
            Random r = new Random(14);
            float[] v = new float[s.batch() * s.spec().inputs()];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) r.nextGaussian();
            }
            int[] y = new int[s.batch()];
            for (int i = 0; i < y.length; i++) {
                y[i] = r.nextInt(s.spec().outputs());
            }
            NDArray x = m.create(v, new Shape(s.batch(), s.spec().inputs()));
            NDArray labels = m.create(y);
            for (int round = -1; round < ROUNDS; round++) {
                for (Precision p : ms.keySet()) {
                    double t = steps(s, p, x, labels);
                    if (round >= 0) {
                        ms.get(p)[round] = t;
                    }
                    System.out.printf("P14 round %d %s: %.2f ms/step%n", round, p, t);
                }
            }
        }
        double fp32 = TrialTimes.median(ms.get(Precision.FP32));
        double fp16 = TrialTimes.median(ms.get(Precision.FP16));
        return new BenchResult("P14", GOAL, command).optSmallerIsBetter().setRatio(fp16 / fp32)
                .put("ratio_is", "median ms of a training step with --precision fp16 / in"
                        + " float32, same model, batch and device, rounds alternating")
                .put("device", s.device().toString())
                .put("model", s.spec().toString())
                .put("batch", s.batch())
                .put("fp32_ms_per_step", ms.get(Precision.FP32))
                .put("fp16_ms_per_step", ms.get(Precision.FP16))
                .put("note", gpu ? "on the GPU: the goal applies"
                        : "no CUDA GPU here, so on the CPU, where half-float products have no"
                        + " fast kernels: the goal is for GPUs, and jobs refuse fp16 without"
                        + " them");
    }

    /** Mean ms per step over the setting's timed steps, after one warm-up step. */
    private static double steps(Setting s, Precision p, NDArray x, NDArray y) {
        try (ModelStage stage = ModelStage.open(s.spec(), OptimizerSpec.adam(1e-3f), 0,
                s.spec().layerCount(), "p14/" + p, s.device(), p)) {
            stage.trainBatch(x, y);
            stage.step();
            int n = p == Precision.FP32 ? s.fp32Steps() : s.fp16Steps();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                stage.trainBatch(x, y);
                stage.step();
            }
            stage.parameters(); // waits for a device's queued work
            return (System.nanoTime() - t0) / 1e6 / n;
        }
    }
}
