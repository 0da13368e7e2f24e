package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.training.ParameterStore;
import dev.dml.DmlException;
import java.util.List;
import java.util.function.Function;

/**
 * The DJL side of a {@link ModelStage}: the blocks of its layers, initialised as in the whole
 * model, their parameter store (which runs them in the stage's precision), the device and the
 * memory they live in, and the forward pass through them, with or without gradients. Owns its
 * {@link NDManager}; input arrays are borrowed.
 */
final class StageNetwork implements AutoCloseable {

    private final Device device;
    private final NDManager manager;
    private final List<Block> blocks;
    private final SequentialBlock block;
    private final int[] layerStarts;
    private final ParameterStore store;
    private final StageLayers.Earlier earlier;
    private final boolean last;

    private StageNetwork(Device device, NDManager manager, List<Block> blocks,
            SequentialBlock block, ParameterStore store, StageLayers.Earlier earlier,
            boolean last) {
        this.device = device;
        this.manager = manager;
        this.blocks = blocks;
        this.block = block;
        this.layerStarts = StageLayers.starts(blocks);
        this.store = store;
        this.earlier = earlier;
        this.last = last;
    }

    /**
     * Builds and initialises the blocks of layers {@code [from, to)} of a model; their
     * parameters are drawn afterwards ({@link ParameterBuffers#initialize}).
     *
     * @throws DmlException when the layers are not a stage of the model
     */
    static StageNetwork open(ModelSpec spec, int from, int to, String name, Device device,
            Precision precision) {
        List<Block> all = StageLayers.children(spec);
        int[] starts = StageLayers.starts(all);
        int layers = starts.length;
        if (from < 0 || to > layers || from >= to) {
            throw new DmlException("Layers [" + from + ", " + to + ") are not a stage of a model"
                    + " with " + layers + " layers.", "Give each stage at least one layer, in"
                    + " order, " + layers + " layers in all.");
        }
        precision.requireEngineSupport();
        int c0 = starts[from];
        int c1 = to == layers ? all.size() : starts[to];
        NDManager manager = NDManager.newBaseManager(device, "PyTorch");
        manager.setName(name);
        try {
            StageLayers.Earlier earlier = StageLayers.earlier(all.subList(0, c0),
                    spec.inputShape());
            List<Block> blocks = List.copyOf(all.subList(c0, c1));
            SequentialBlock block = new SequentialBlock();
            StageLayers.initialize(blocks, block, manager, earlier.output());
            ParameterStore store = precision == Precision.FP32
                    ? new ParameterStore(manager, false)
                    : new MixedPrecision(manager, precision, blocks);
            return new StageNetwork(device, manager, blocks, block, store, earlier,
                    to == layers);
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /**
     * Runs one backward of a zero loss so every parameter has a gradient tensor; once, after
     * the parameters are drawn (zero the gradients afterwards).
     */
    void prime() {
        StageLayers.prime(blocks, store, manager, earlier.output());
    }

    /** Tells whether the stage holds the model's last layer, the one the loss is taken on. */
    boolean last() {
        return last;
    }

    /** The stage's blocks as one DJL block, borrowed. */
    SequentialBlock block() {
        return block;
    }

    /** The memory of the stage's arrays; its device is the stage's. */
    NDManager manager() {
        return manager;
    }

    /** Where this stage's parameters start in the whole model's. */
    int parameterOffset() {
        return earlier.parameters();
    }

    /** How far the parameter init stream has gone through the layers before this stage. */
    long randomDraws() {
        return earlier.randomDraws();
    }

    /** The index of each layer's first block in this stage. */
    int[] layerStarts() {
        return layerStarts.clone();
    }

    int blockCount() {
        return blocks.size();
    }

    /** Each layer's number of scalar parameters. */
    long[] layerParameters() {
        return StageLayers.parameters(blocks, layerStarts);
    }

    /** Each layer's cost, see {@link ModelStage#layerCosts}. */
    double[] layerCosts(NDArray x, int repeats) {
        return StageLayers.costs(blocks, layerStarts, store, manager, x, repeats);
    }

    /** Runs every block; an input elsewhere is copied to the device, in its own manager. */
    NDArray forward(NDArray x) {
        return forward(x, 0, blocks.size());
    }

    /** Runs blocks {@code [from, to)}, as {@link #forward(NDArray)} runs all. */
    NDArray forward(NDArray x, int from, int to) {
        return StageLayers.forward(blocks.subList(from, to), store, onDevice(x, x.getManager()));
    }

    /** The array on this stage's device: itself, or a copy owned by {@code scope}. */
    NDArray onDevice(NDArray a, NDManager scope) {
        if (a.getDevice().equals(device)) {
            return a;
        }
        NDArray copy = a.toDevice(device, false);
        copy.attach(scope);
        return copy;
    }

    /** Runs forward without gradients; what is made from the borrowed arrays is freed. */
    <T> T noGrad(NDArray input, NDArray labels, Function<NDArray, T> body) {
        return GradMode.run(false, () -> {
            try (NDManager scope = manager.newSubManager()) {
                input.tempAttach(scope);
                if (labels != null) {
                    labels.tempAttach(scope);
                }
                return body.apply(forward(input));
            }
        });
    }

    /** Applies {@code body} to an activation decoded from bytes, freed afterwards. */
    <T> T decoded(byte[] activation, Function<NDArray, T> body) {
        try (NDManager scope = manager.newSubManager()) {
            return body.apply(TensorBytes.decode(activation, scope));
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
