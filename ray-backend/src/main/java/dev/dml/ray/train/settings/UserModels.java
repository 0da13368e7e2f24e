package dev.dml.ray.train.settings;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.Embeddings;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.UserBlock;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * The model of a user's own block ({@code --block VAR}): sized to the table, and tried once in
 * the kernel, so that a block that cannot be built, or returns the wrong width, is refused in
 * one line before any worker starts.
 */
public final class UserModels {

    private UserModels() {}

    public static ModelSpec of(UserBlock block, OptionValues v, ColumnSelection columns,
            Supplier<FeatureStats> stats, int classes, Embeddings embeddings) {
        for (var o : java.util.List.of(TrainOptions.MODEL, TrainOptions.HIDDEN)) {
            if (v.isSet(o)) {
                throw new DmlException("{block} trains your own block, and {" + o.name()
                        + "} sizes a built-in one.", "Keep one of them.");
            }
        }
        if (!embeddings.isEmpty()) {
            throw new DmlException("The features embed columns with more than {embed-above}"
                    + " values, and a user's block reads numbers only.", "Raise {embed-above}"
                    + " to one-hot encode them, or select other {features}.");
        }
        boolean isClasses = columns.labelKind() == LabelKind.CLASSES;
        int outputs = isClasses ? Math.max(2, classes) : 1;
        int inputs = columns.inputCount();
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.CUSTOM).setInputs(inputs)
                .setOutputs(outputs).optStandardize(stats.get())
                .optBlock(block).optSeed(v.get(TrainOptions.SEED)).build();
        Shape out = outputShape(spec, block);
        if (out.dimension() != 2 || out.get(1) != outputs) {
            throw new DmlException("The " + DmlException.literal(block) + " returns "
                    + Arrays.toString(out.getShape()) + " for a batch [B, " + inputs + "], and"
                    + " the label needs [B, " + outputs + "] (" + (isClasses ? outputs
                    + " class scores" : "one value") + ").", "Make newBlock(inputs, outputs)"
                    + " end in a layer of 'outputs' units.");
        }
        return spec;
    }

    /** Builds the block once, as a worker will, and returns its output shape for 2 rows. */
    private static Shape outputShape(ModelSpec spec, UserBlock block) {
        Block b;
        try {
            b = spec.newBlock();
        } catch (DmlException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DmlException("The " + DmlException.literal(block) + " failed to build: "
                    + DmlException.literal(e) + ".", "Fix newBlock, then train again.", e);
        }
        try (NDManager m = NDManager.newBaseManager("PyTorch")) {
            Shape in = new Shape(2, spec.inputs());
            b.initialize(m, DataType.FLOAT32, in);
            return b.getOutputShapes(new Shape[] {in})[0];
        } catch (RuntimeException e) {
            throw new DmlException("The " + DmlException.literal(block) + " cannot take a batch"
                    + " of [B, " + spec.inputs() + "] features: " + DmlException.literal(e)
                    + ".", "Make newBlock(inputs, outputs) accept rows of 'inputs' numbers.", e);
        }
    }
}
