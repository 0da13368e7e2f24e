package dev.dml.bench;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.LibUtils;
import ai.djl.util.cuda.CudaUtils;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.model.Precision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * One dml worker's training steps without Ray: {@link ModelStage#open} of an MLP on a device,
 * then {@code trainBatch} and {@code step} over fixed synthetic batches, as a data-parallel
 * worker does them. It prints one JSON line: which libtorch and JNI library the engine loaded,
 * the loss after every step, the examples/s of the timed steps and when they ran. {@code
 * bench/gpu/p9-on-device} runs it beside the same MLP in PyTorch ({@code
 * bench/gpu/torch_step.py}); {@code bench/gpu/build-jni} explains how a libtorch other than
 * DJL's own is chosen.
 *
 * <p>Arguments, each {@code --name value}: {@code device} ({@code cpu} or {@code gpu}),
 * {@code model} ({@code mlp}, or {@code cnn}: dml's small CNN, which ignores {@code hidden}),
 * {@code hidden} (comma-separated), {@code batch}, {@code warmup}, {@code steps}.
 */
public final class GpuStep {

    private static final int INPUTS = 784;
    private static final int CLASSES = 10;
    private static final int BATCHES = 8; // distinct batches, cycled

    private GpuStep() {}

    /**
     * Runs the steps and prints the JSON line.
     *
     * @param args {@code --name value} pairs, see the class comment
     * @throws IOException if {@code /proc/self/maps} cannot be read
     */
    public static void main(String[] args) throws IOException {
        Map<String, String> a = options(args);
        Device device = switch (a.get("device")) {
            case "cpu" -> Device.cpu();
            case "gpu" -> Device.gpu(0);
            default -> throw new IllegalArgumentException("--device is cpu or gpu, not '"
                    + a.get("device") + "'.");
        };
        int[] hidden = Arrays.stream(a.get("hidden").split(",")).mapToInt(Integer::parseInt)
                .toArray();
        int batch = Integer.parseInt(a.get("batch"));
        int warmup = Integer.parseInt(a.get("warmup"));
        int steps = Integer.parseInt(a.get("steps"));

        Engine engine = Engine.getEngine("PyTorch");
        ModelSpec spec = switch (a.get("model")) {
            case "mlp" -> ModelSpec.mlp(INPUTS, CLASSES, hidden).withSeed(11);
            case "cnn" -> ModelSpec.cnn(CLASSES).withSeed(11);
            default -> throw new IllegalArgumentException("--model is mlp or cnn, not '"
                    + a.get("model") + "'.");
        };
        JsonArray losses = new JsonArray();
        long t0 = 0;
        long t0Ms = 0;
        double seconds;
        long t1Ms;
        try (NDManager host = NDManager.newBaseManager(Device.cpu(), "PyTorch");
                ModelStage stage = ModelStage.open(spec, OptimizerSpec.adam(1e-3f), 0,
                        spec.layerCount(), "gpustep/0", device, Precision.FP32)) {
            NDArray[] data = data(host, batch * BATCHES);
            for (int i = 0; i < warmup + steps; i++) {
                if (i == warmup) {
                    t0 = System.nanoTime();
                    t0Ms = System.currentTimeMillis();
                }
                NDIndex rows = new NDIndex("{}:{}", (i % BATCHES) * batch,
                        (i % BATCHES + 1) * batch);
                try (NDArray x = data[0].get(rows); NDArray y = data[1].get(rows)) {
                    losses.add(stage.trainBatch(x, y)); // the loss read waits for the step
                    stage.step();
                }
            }
            seconds = (System.nanoTime() - t0) / 1e9;
            t1Ms = System.currentTimeMillis();
        }
        JsonObject out = new JsonObject();
        out.addProperty("engine", engine.getEngineName() + " " + engine.getVersion());
        out.addProperty("cuda", engine.hasCapability("CUDA"));
        out.addProperty("device", device.toString());
        // what dml's GpuProbe reads: DJL's count through JNA's cudart, not through libtorch
        out.addProperty("cudart_gpu_count", CudaUtils.getGpuCount());
        out.addProperty("libtorch_dir", LibUtils.getLibtorchPath());
        out.addProperty("loaded", loaded());
        out.addProperty("hidden", a.get("hidden"));
        out.addProperty("batch", batch);
        out.addProperty("warmup", warmup);
        out.addProperty("steps", steps);
        out.addProperty("examples_per_s", steps * (double) batch / seconds);
        out.addProperty("t0_ms", t0Ms); // the timed steps, for the GPU's utilisation samples
        out.addProperty("t1_ms", t1Ms);
        out.add("losses", losses);
        System.out.println(out);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> a = new LinkedHashMap<>(Map.of("device", "cpu", "model", "mlp",
                "hidden", "1024,1024", "batch", "512", "warmup", "5", "steps", "20"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            String name = args[i].replaceFirst("^--", "");
            if (!a.containsKey(name)) {
                throw new IllegalArgumentException("Unknown option " + args[i] + "; known: "
                        + a.keySet() + ".");
            }
            a.put(name, args[i + 1]);
        }
        return a;
    }

    /**
     * Features from a fixed {@link Random} and labels from a fixed random linear teacher, on
     * the host as a worker's shard is: the same numbers whichever libtorch runs.
     */
    private static NDArray[] data(NDManager host, int rows) {
        Random r = new Random(7);
        float[] x = new float[rows * INPUTS];
        float[] w = new float[INPUTS * CLASSES];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) r.nextGaussian();
        }
        int[] y = new int[rows];
        for (int row = 0; row < rows; row++) {
            int best = 0;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < CLASSES; c++) {
                double s = 0;
                for (int k = 0; k < INPUTS; k++) {
                    s += x[row * INPUTS + k] * w[k * CLASSES + c];
                }
                if (s > bestScore) {
                    bestScore = s;
                    best = c;
                }
            }
            y[row] = best;
        }
        return new NDArray[] {host.create(x, new Shape(rows, INPUTS)), host.create(y)};
    }

    /** The JNI library and libtorch_cpu this process mapped: proof of which ones ran. */
    private static String loaded() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .map(l -> l.substring(l.lastIndexOf(' ') + 1))
                .filter(p -> p.endsWith("djl_torch.so") || p.endsWith("libtorch_cpu.so"))
                .distinct().collect(Collectors.joining(" "));
    }
}
