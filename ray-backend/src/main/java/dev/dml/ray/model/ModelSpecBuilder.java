package dev.dml.ray.model;

import dev.dml.DmlException;
import dev.dml.ray.data.FeatureStats;
import java.util.Arrays;

/** Builds a {@link ModelSpec}; setters reject bad values at once. */
public final class ModelSpecBuilder {

    final ModelSpec.Family family;
    int inputs;
    int outputs;
    int[] hidden = new int[0];
    int[] convChannels = {8, 16};
    int[] image = {1, 28, 28};
    Objective objective;
    long seed = 42;
    boolean customHidden;
    FeatureStats standardize;
    Embeddings embeddings = Embeddings.none();
    float offset;
    UserBlock block;

    ModelSpecBuilder(ModelSpec.Family family) {
        if (family == null) {
            throw new DmlException("The model family is missing.", "Pass a ModelSpec.Family.");
        }
        this.family = family;
        if (family == ModelSpec.Family.CNN) {
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
    public ModelSpecBuilder setInputs(int n) {
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
    public ModelSpecBuilder setOutputs(int n) {
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
    public ModelSpecBuilder addHidden(int units) {
        ModelSpecChecks.positive(units, "hidden units");
        if (family == ModelSpec.Family.CNN && Arrays.equals(hidden, new int[] {64})
                && !customHidden) {
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
    public ModelSpecBuilder optConvChannels(int... channels) {
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
     * Sets the CNN's image layout; the input width becomes {@code c * h * w}, read
     * channel-last: pixel by pixel, its {@code c} values together, as numpy's {@code
     * reshape(n, -1)} of {@code [n, h, w, c]} images. A 2x2 max-pool follows each convolution
     * while the image is at least 4 pixels on its shorter side.
     *
     * @param channels image channels, default 1
     * @param height image height, default 28
     * @param width image width, default 28
     * @return this builder
     */
    public ModelSpecBuilder optImage(int channels, int height, int width) {
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
    public ModelSpecBuilder optStandardize(FeatureStats stats) {
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
    public ModelSpecBuilder optEmbeddings(Embeddings e) {
        this.embeddings = e == null ? Embeddings.none() : e;
        return this;
    }

    /**
     * Sets the user's block of a {@link Family#CUSTOM} model (required for it).
     *
     * @param b the captured factory, {@link UserBlock#of}
     * @return this builder
     */
    public ModelSpecBuilder optBlock(UserBlock b) {
        this.block = b;
        return this;
    }

    /**
     * Sets the constant an mf model's score starts from, e.g. the mean training rating.
     *
     * @param value the offset, default 0
     * @return this builder
     */
    public ModelSpecBuilder optOffset(float value) {
        this.offset = value;
        return this;
    }

    /**
     * Sets the loss; default softmax cross-entropy, or L2 when there is one output.
     *
     * @param o the objective
     * @return this builder
     */
    public ModelSpecBuilder optObjective(Objective o) {
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
    public ModelSpecBuilder optSeed(long s) {
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
        if ((family == ModelSpec.Family.CUSTOM) != (block != null)) {
            throw new DmlException(family == ModelSpec.Family.CUSTOM
                    ? "A custom model needs its block."
                    : "optBlock sets the block of a custom model; this is a "
                    + family.optionName() + " model.", family == ModelSpec.Family.CUSTOM
                    ? "Call optBlock(UserBlock.of(name, factory, Map.of()))."
                    : "Use ModelSpec.builder(ModelSpec.Family.CUSTOM), or drop optBlock.");
        }
        return ModelSpec.of(this);
    }
}
