package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.training.ParameterStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The layers of a sequential model: which of its blocks make up each layer (see {@link
 * ModelStage}), and what each layer costs.
 */
final class StageLayers {

    private StageLayers() {}

    /** The blocks of a spec's model, in order. */
    static List<Block> children(ModelSpec spec) {
        return new ArrayList<>(((SequentialBlock) spec.newBlock()).getChildren().values());
    }

    /** The index of each layer's first block: a parametric block starts a layer, but the first. */
    static int[] starts(List<Block> blocks) {
        List<Integer> s = new ArrayList<>();
        s.add(0);
        boolean seen = false;
        for (int i = 0; i < blocks.size(); i++) {
            if (!blocks.get(i).getParameters().isEmpty()) {
                if (seen) {
                    s.add(i);
                }
                seen = true;
            }
        }
        return s.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Initialises blocks in order from an input shape, adds them to {@code into}. */
    static Shape initialize(List<Block> blocks, SequentialBlock into, NDManager manager,
            Shape shape) {
        for (Block b : blocks) {
            b.initialize(manager, DataType.FLOAT32, shape);
            into.add(b);
            shape = b.getOutputShapes(new Shape[] {shape})[0];
        }
        return shape;
    }

    /** Runs blocks in order on {@code x}, in training mode (in the store's precision). */
    static NDArray forward(List<Block> blocks, ParameterStore store, NDArray x) {
        if (store instanceof MixedPrecision mixed) {
            return mixed.forward(blocks, x);
        }
        NDList h = new NDList(x);
        for (Block b : blocks) {
            h = b.forward(store, h, true);
        }
        return h.singletonOrThrow();
    }

    /**
     * Runs one backward of a zero loss through blocks so every parameter has a gradient tensor
     * (zero it afterwards: the result is zero times the gradient, which may hold no number).
     */
    static void prime(List<Block> blocks, ParameterStore store, NDManager manager,
            Shape inputShape) {
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try (NDManager scope = manager.newSubManager()) {
            NDArray x = scope.zeros(inputShape, DataType.FLOAT32);
            NDArray zero = forward(blocks, store, x).sum().mul(0f);
            JniUtils.backward((PtNDArray) zero, (PtNDArray) scope.ones(zero.getShape()), false,
                    false);
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    static long[] parameters(List<Block> blocks, int[] starts) {
        long[] out = new long[starts.length];
        for (int j = 0; j < starts.length; j++) {
            for (Block b : layer(blocks, starts, j)) {
                for (Parameter p : b.getParameters().values()) {
                    out[j] += p.getArray().size();
                }
            }
        }
        return out;
    }

    /** Median forward+backward milliseconds of each layer, each fed the previous one's output. */
    static double[] time(List<Block> blocks, int[] starts, ParameterStore store,
            NDManager scope, NDArray x, int repeats) {
        double[][] ms = new double[starts.length][Math.max(1, repeats)];
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(true);
        try {
            for (int r = 0; r < ms[0].length; r++) {
                NDArray h = x.duplicate();
                h.attach(scope);
                for (int j = 0; j < starts.length; j++) {
                    h.setRequiresGradient(true);
                    long t0 = System.nanoTime();
                    NDArray y = forward(layer(blocks, starts, j), store, h);
                    NDArray s = y.sum();
                    JniUtils.backward((PtNDArray) s, (PtNDArray) scope.ones(s.getShape()),
                            false, false);
                    ms[j][r] = (System.nanoTime() - t0) / 1e6;
                    h = y.stopGradient();
                }
            }
        } finally {
            JniUtils.setGradMode(was);
        }
        double[] med = new double[starts.length];
        for (int j = 0; j < med.length; j++) {
            Arrays.sort(ms[j]);
            med[j] = ms[j][ms[j].length / 2];
        }
        return med;
    }

    private static List<Block> layer(List<Block> blocks, int[] starts, int j) {
        int end = j + 1 < starts.length ? starts[j + 1] : blocks.size();
        return blocks.subList(starts[j], end);
    }

    /**
     * What the layers before a stage hold: the stage's input shape, their parameter count (the
     * stage's offset in the flat vector) and how far the init stream has gone through them.
     */
    record Earlier(Shape output, int parameters, long randomDraws) {}

    /** Builds the layers before a stage on the CPU, only to measure them ({@link Earlier}). */
    static Earlier earlier(List<Block> before, Shape input) {
        try (NDManager temp = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
            SequentialBlock block = new SequentialBlock();
            Shape shape = initialize(before, block, temp, input);
            ParameterBuffers earlier = new ParameterBuffers(block);
            return new Earlier(shape, earlier.total(), earlier.randomDraws());
        }
    }

    /** A stage's layer costs: parameter counts, or (given an input) times; see ModelStage. */
    static double[] costs(List<Block> blocks, int[] starts, ParameterStore store,
            NDManager manager, NDArray x, int repeats) {
        if (x == null) {
            return Arrays.stream(parameters(blocks, starts)).asDoubleStream().toArray();
        }
        try (NDManager scope = manager.newSubManager()) {
            return time(blocks, starts, store, scope, x, repeats);
        }
    }
}
