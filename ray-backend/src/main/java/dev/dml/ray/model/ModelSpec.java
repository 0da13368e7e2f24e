package dev.dml.ray.model;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import dev.dml.DmlException;
import dev.dml.ray.data.FeatureStats;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What model to build: its family, sizes, loss and initialisation seed.
 *
 * <p>A plain immutable {@link Serializable} class (not a record) so that it can be sent to Ray
 * workers; each worker builds its own DJL {@link Block} with {@link #newBlock()}. Every model
 * takes features {@code [B, inputs]} (a CNN reshapes them to {@code [B, C, H, W]} itself) and
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

    /** The model families, by the name {@code --model} gives them. */
    public enum Family {
        /** One linear layer; with {@link Objective#L2} this is linear regression. */
        LOGISTIC_REGRESSION("logistic"),
        /** Linear layers with ReLU between them, sizes from {@link Builder#addHidden}. */
        MLP("mlp"),
        /** conv(5x5)-ReLU-maxpool-conv(5x5)-ReLU-maxpool-dense-ReLU-dense, for small images. */
        CNN("cnn"),
        /** Matrix factorization of two embedded id inputs, see {@link MatrixFactorization}. */
        MF("mf");

        private final String optionName;

        Family(String optionName) {
            this.optionName = optionName;
        }

        /** @return the family's value of {@code --model}, e.g. {@code logistic} */
        public String optionName() {
            return optionName;
        }

        /**
         * @param name a {@code --model} value, e.g. {@code mlp}
         * @return its family
         */
        public static Family ofOption(String name) {
            for (Family f : values()) {
                if (f.optionName.equals(name)) {
                    return f;
                }
            }
            throw new DmlException("No model family is called '" + DmlException.literal(name)
                    + "'.", "Use one of mlp, logistic, cnn, mf ({model}).");
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

    private ModelSpec(Builder b) {
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
    }

    /**
     * Starts a spec of the given family.
     *
     * @param family the model family
     * @return a builder
     */
    public static Builder builder(Family family) {
        return new Builder(family);
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
        Builder b = builder(Family.MLP).setInputs(inputs).setOutputs(classes);
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
        Builder b = toBuilder();
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
        if (family == Family.MF) {
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

    private Builder toBuilder() {
        Builder b = new Builder(family);
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
                + ", objective=" + objective + ", seed=" + seed
                + (standardize != null ? ", standardized" : "") + "}";
    }

    /** Builds a {@link ModelSpec}; setters reject bad values at once. */
    public static final class Builder {

        private final Family family;
        private int inputs;
        private int outputs;
        private int[] hidden = new int[0];
        private int[] convChannels = {8, 16};
        private int[] image = {1, 28, 28};
        private Objective objective;
        private long seed = 42;
        private boolean customHidden;
        private FeatureStats standardize;
        private Embeddings embeddings = Embeddings.none();
        private float offset;

        private Builder(Family family) {
            if (family == null) {
                throw new DmlException("The model family is missing.", "Pass a ModelSpec.Family.");
            }
            this.family = family;
            if (family == Family.CNN) {
                inputs = 28 * 28;
                hidden = new int[] {64};
            }
        }

        /**
         * Sets the number of input features (required, except for a CNN where it follows from
         * {@link #optImage}).
         *
         * @param n the feature count
         * @return this builder
         */
        public Builder setInputs(int n) {
            ModelSpecChecks.positive(n, "inputs");
            this.inputs = n;
            return this;
        }

        /**
         * Sets the number of outputs: classes, or 1 for sigmoid or regression (required).
         *
         * @param n the output count
         * @return this builder
         */
        public Builder setOutputs(int n) {
            ModelSpecChecks.positive(n, "outputs");
            this.outputs = n;
            return this;
        }

        /**
         * Appends a hidden dense layer (MLP; for a CNN the first call replaces the default 64).
         *
         * @param units the layer width
         * @return this builder
         */
        public Builder addHidden(int units) {
            ModelSpecChecks.positive(units, "hidden units");
            if (family == Family.CNN && Arrays.equals(hidden, new int[] {64}) && !customHidden) {
                hidden = new int[0];
            }
            customHidden = true;
            hidden = Arrays.copyOf(hidden, hidden.length + 1);
            hidden[hidden.length - 1] = units;
            return this;
        }

        /**
         * Sets the CNN's convolution channels, one 5x5 conv + 2x2 max-pool per entry.
         *
         * @param channels the channel counts, default {@code 8, 16}
         * @return this builder
         */
        public Builder optConvChannels(int... channels) {
            if (channels.length == 0) {
                throw new DmlException("A CNN needs at least one conv layer.", "Pass e.g. 8, 16.");
            }
            for (int c : channels) {
                ModelSpecChecks.positive(c, "conv channels");
            }
            this.convChannels = channels.clone();
            return this;
        }

        /**
         * Sets the CNN's image layout; the input width becomes {@code c * h * w}.
         *
         * @param channels image channels, default 1
         * @param height image height, default 28
         * @param width image width, default 28
         * @return this builder
         */
        public Builder optImage(int channels, int height, int width) {
            ModelSpecChecks.positive(channels, "image channels");
            ModelSpecChecks.positive(height, "image height");
            ModelSpecChecks.positive(width, "image width");
            this.image = new int[] {channels, height, width};
            this.inputs = channels * height * width;
            return this;
        }

        /**
         * Builds input standardisation {@code (x - mean) / std} into the model, so raw features
         * (e.g. amounts in the thousands) train well and predictions need no extra step.
         *
         * @param stats per-feature statistics from {@link FeatureStats#of}
         * @return this builder
         */
        public Builder optStandardize(FeatureStats stats) {
            this.standardize = stats;
            return this;
        }

        /**
         * Embeds category-index inputs (see {@link Embeddings}); an mf model embeds its two
         * inputs, user and item, with the widths as its factors.
         *
         * @param e the embedded inputs
         * @return this builder
         */
        public Builder optEmbeddings(Embeddings e) {
            this.embeddings = e == null ? Embeddings.none() : e;
            return this;
        }

        /**
         * Sets the constant an mf model's score starts from, e.g. the mean training rating.
         *
         * @param value the offset, default 0
         * @return this builder
         */
        public Builder optOffset(float value) {
            this.offset = value;
            return this;
        }

        /**
         * Sets the loss; default softmax cross-entropy, or L2 when there is one output.
         *
         * @param o the objective
         * @return this builder
         */
        public Builder optObjective(Objective o) {
            this.objective = o;
            return this;
        }

        /**
         * Sets the initialisation seed (default 42): the same seed gives bitwise identical
         * initial parameters.
         *
         * @param s the seed
         * @return this builder
         */
        public Builder optSeed(long s) {
            this.seed = s;
            return this;
        }

        /**
         * Builds the spec.
         *
         * @return the immutable spec
         */
        public ModelSpec build() {
            ModelSpecChecks.requireShape(family, inputs, outputs, hidden);
            if (objective == null) {
                objective = outputs == 1 ? Objective.L2 : Objective.SOFTMAX_CROSS_ENTROPY;
            }
            ModelSpecChecks.requireConsistent(
                    family, inputs, outputs, image, objective, standardize);
            ModelSpecChecks.requireEmbeddable(family, inputs, outputs, embeddings, offset);
            return new ModelSpec(this);
        }
    }
}
