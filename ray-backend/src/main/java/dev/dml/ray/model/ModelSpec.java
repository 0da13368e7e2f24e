package dev.dml.ray.model;

import dev.dml.options.ModelFamily;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import dev.dml.ray.data.FeatureStats;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What model to build: its family, sizes, loss and initialisation seed.
 *
 * <p>A plain immutable {@link Serializable} class (not a record) so that it can be sent to Ray
 * workers; each worker builds its own DJL {@link Block} with {@link #newBlock()}. Every model
 * takes features {@code [B, inputs]} (a CNN reads them as channel-last pixels and makes them
 * {@code [B, C, H, W]} itself) and
 * returns {@code [B, outputs]}.
 *
 * <pre>{@code
 * ModelSpec lr  = ModelSpec.logisticRegression(31, 2);
 * ModelSpec mlp = ModelSpec.builder(ModelSpec.Family.MLP)
 *         .setInputs(784).setOutputs(10).addHidden(128).addHidden(64).optSeed(7).build();
 * ModelSpec cnn = ModelSpec.cnn(10);      // 28x28x1 images
 * }</pre>
 */
public final class ModelSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The model families: those of {@code --model} ({@link ModelFamily}), and a user's block. */
    public enum Family {
        /** One linear layer; with {@link Objective#L2} this is linear regression. */
        LOGISTIC_REGRESSION(ModelFamily.LOGISTIC),
        /** Linear layers with ReLU between them, sizes from {@link ModelSpecBuilder#addHidden}. */
        MLP(ModelFamily.MLP),
        /** conv(5x5)-ReLU-maxpool-conv(5x5)-ReLU-maxpool-dense-ReLU-dense, for small images
         *  (a pool only while the image is at least 4 pixels wide). */
        CNN(ModelFamily.CNN),
        /** Matrix factorization of two embedded id inputs, see {@link MatrixFactorization}. */
        MF(ModelFamily.MF),
        /** A user's own block from a {@link BlockFactory} ({@code --block VAR}). */
        CUSTOM(null);

        private final ModelFamily option;

        Family(ModelFamily option) {
            this.option = option;
        }

        /** @return the family's value of {@code --model}, e.g. {@code logistic}; {@code block} */
        public String optionName() {
            return option == null ? "block" : option.word();
        }

        /** @return the family's value of {@code --model}, or null for {@link #CUSTOM} */
        public ModelFamily option() {
            return option;
        }

        /**
         * The one place {@code --model}'s values meet the engine's families.
         *
         * @param option a {@code --model} value
         * @return its family
         */
        public static Family of(ModelFamily option) {
            for (Family f : values()) {
                if (f.option == option) {
                    return f;
                }
            }
            throw new IllegalArgumentException("no family for " + option);
        }
    }

    private final Family family;
    private final int inputs;
    private final int outputs;
    private final int[] hidden;
    private final int[] convChannels;
    private final int[] image;
    private final Objective objective;
    private final long seed;
    private final FeatureStats standardize;
    private final Embeddings embeddings;
    private final float offset;
    private final UserBlock block;

    static ModelSpec of(ModelSpecBuilder b) {
        return new ModelSpec(b);
    }

    private ModelSpec(ModelSpecBuilder b) {
        this.family = b.family;
        this.inputs = b.inputs;
        this.outputs = b.outputs;
        this.hidden = b.hidden.clone();
        this.convChannels = b.convChannels.clone();
        this.image = b.image.clone();
        this.objective = b.objective;
        this.seed = b.seed;
        this.standardize = b.standardize;
        this.embeddings = b.embeddings;
        this.offset = b.offset;
        this.block = b.block;
    }

    /**
     * Starts a spec of the given family.
     *
     * @param family the model family
     * @return a builder
     */
    public static ModelSpecBuilder builder(Family family) {
        return new ModelSpecBuilder(family);
    }

    /**
     * A logistic (softmax) regression over {@code classes} classes.
     *
     * @param inputs the number of features
     * @param classes the number of classes, at least 2
     * @return the spec
     */
    public static ModelSpec logisticRegression(int inputs, int classes) {
        return builder(Family.LOGISTIC_REGRESSION).setInputs(inputs).setOutputs(classes).build();
    }

    /**
     * An MLP classifier with ReLU hidden layers.
     *
     * @param inputs the number of features
     * @param classes the number of classes, at least 2
     * @param hidden the hidden layer sizes, at least one
     * @return the spec
     */
    public static ModelSpec mlp(int inputs, int classes, int... hidden) {
        ModelSpecBuilder b = builder(Family.MLP).setInputs(inputs).setOutputs(classes);
        for (int h : hidden) {
            b.addHidden(h);
        }
        return b.build();
    }

    /**
     * The small CNN for 28x28 grey images (Fashion-MNIST): channels 8 and 16, dense 64.
     *
     * @param classes the number of classes
     * @return the spec
     */
    public static ModelSpec cnn(int classes) {
        return builder(Family.CNN).setOutputs(classes).build();
    }

    /** Returns the model family. @return the family */
    public Family family() {
        return family;
    }

    /** Returns the number of input features per row. @return the input width */
    public int inputs() {
        return inputs;
    }

    /**
     * Returns the number of outputs per row (classes, 1 for sigmoid or regression).
     *
     * @return the output width
     */
    public int outputs() {
        return outputs;
    }

    /** Returns the hidden (dense) layer sizes. @return a copy of the sizes */
    public int[] hidden() {
        return hidden.clone();
    }

    /**
     * Returns the floats one row's forward pass makes, all layers together: what scoring a
     * chunk of rows holds per row. 0 where unknown (a user's block, matrix factorization).
     *
     * @return the floats per row, or 0
     */
    public long activationFloatsPerRow() {
        return ModelLayout.activationFloats(this);
    }

    /** Returns the loss this model is trained with. @return the objective */
    public Objective objective() {
        return objective;
    }

    /** Returns the initialisation seed. @return the seed */
    public long seed() {
        return seed;
    }

    /**
     * Returns the same spec with another seed.
     *
     * @param newSeed the seed
     * @return a new spec
     */
    public ModelSpec withSeed(long newSeed) {
        ModelSpecBuilder b = toBuilder();
        b.seed = newSeed;
        return b.build();
    }

    /** @return the shape of a one-row input, {@code [1, inputs]}, to initialise the block */
    public Shape inputShape() {
        return new Shape(1, inputs);
    }

    /** @return a new, uninitialised DJL block for this spec */
    public Block newBlock() {
        return ModelBlocks.build(this);
    }

    /**
     * Returns the number of layers a model or pipeline split can cut between: each linear or
     * convolution layer with the activation, pooling or flatten after it (see {@link
     * ModelStage}).
     *
     * @return at least 1
     */
    public int layerCount() {
        if (family == Family.MF || family == Family.CUSTOM) {
            return 1;
        }
        int dense = family == Family.LOGISTIC_REGRESSION ? 0 : hidden.length;
        return (family == Family.CNN ? convChannels.length : 0) + dense + 1
                + (embeddings.isEmpty() ? 0 : 1);
    }

    /** @return the inputs that are category indices to embed; empty when none */
    public Embeddings embeddings() {
        return embeddings;
    }

    /** @return the user's block of a {@link Family#CUSTOM} model, else {@code null} */
    public UserBlock block() {
        return block;
    }

    /** @return the constant an mf model's score starts from (0 for other families) */
    public float offset() {
        return offset;
    }

    /** @return the input standardisation built into the model, or {@code null} */
    public FeatureStats standardize() {
        return standardize;
    }

    int[] convChannels() {
        return convChannels.clone();
    }

    int[] image() {
        return image.clone();
    }

    private ModelSpecBuilder toBuilder() {
        ModelSpecBuilder b = new ModelSpecBuilder(family);
        b.inputs = inputs;
        b.outputs = outputs;
        b.hidden = hidden.clone();
        b.convChannels = convChannels.clone();
        b.image = image.clone();
        b.objective = objective;
        b.seed = seed;
        b.standardize = standardize;
        b.embeddings = embeddings;
        b.offset = offset;
        b.block = block;
        return b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelSpec && toString().equals(o.toString())
                && java.util.Objects.equals(standardize, ((ModelSpec) o).standardize);
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        return family + "{inputs=" + inputs + ", outputs=" + outputs + ", hidden="
                + Arrays.toString(hidden) + (family == Family.CNN
                        ? ", conv=" + Arrays.toString(convChannels) + ", image="
                                + Arrays.toString(image) : "")
                + (embeddings.isEmpty() ? "" : ", " + embeddings)
                + (family == Family.MF ? ", offset=" + offset : "")
                + (block != null ? ", " + block : "")
                + ", objective=" + objective + ", seed=" + seed
                + (standardize != null ? ", standardized" : "") + "}";
    }
}
