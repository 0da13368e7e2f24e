package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import dev.dml.DmlException;
import dev.dml.ray.data.FeatureStats;
import java.util.Arrays;

/** The checks behind {@link ModelSpecBuilder} and a model's batches: each says what to do. */
final class ModelSpecChecks {

    private ModelSpecChecks() {}

    /** Rejects a count below 1, naming {@code what}. */
    static void positive(int n, String what) {
        if (n < 1) {
            throw new DmlException(
                    "The model's " + what + " must be positive, got " + n + ".",
                    "Pass a count of at least 1.");
        }
    }

    /** Requires the widths every spec needs, and a hidden layer for an MLP. */
    static void requireShape(ModelSpec.Family family, int inputs, int outputs, int[] hidden) {
        if (inputs == 0) {
            throw new DmlException(
                    "The model spec has no input width.", "Call setInputs(featureCount).");
        }
        if (outputs == 0) {
            throw new DmlException(
                    "The model spec has no output width.",
                    "Call setOutputs(classes), or setOutputs(1) for regression.");
        }
        if (family == ModelSpec.Family.MLP && hidden.length == 0) {
            throw new DmlException(
                    "An MLP needs at least one hidden layer.", "Call addHidden(units).");
        }
    }

    /** Requires the objective, standardisation and image layout to fit the widths. */
    static void requireConsistent(ModelSpec.Family family, int inputs, int outputs, int[] image,
            Objective objective, FeatureStats standardize) {
        if (objective == Objective.SOFTMAX_CROSS_ENTROPY && outputs < 2) {
            throw new DmlException(
                    "Softmax cross-entropy needs at least 2 outputs, got " + outputs + ".",
                    "Use setOutputs(classes), or Objective.SIGMOID_BINARY_CROSS_ENTROPY.");
        }
        if (objective != Objective.SOFTMAX_CROSS_ENTROPY && outputs != 1) {
            throw new DmlException(
                    objective + " needs exactly 1 output, got " + outputs + ".",
                    "Call setOutputs(1).");
        }
        if (standardize != null && standardize.size() != inputs) {
            throw new DmlException(
                    "The standardisation has " + standardize.size() + " features, but the"
                            + " model takes " + inputs + ".",
                    "Compute FeatureStats.of(table, selection) with the model's features.");
        }
        if (family == ModelSpec.Family.CNN && inputs != image[0] * image[1] * image[2]) {
            throw new DmlException(
                    "A CNN over " + Arrays.toString(image) + " images takes "
                            + image[0] * image[1] * image[2] + " inputs, not " + inputs + ".",
                    "Call optImage(channels, height, width) instead of setInputs.");
        }
    }

    /** Requires the embedded inputs to be inputs, and an mf model's two ids and one score. */
    static void requireEmbeddable(ModelSpec.Family family, int inputs, int outputs,
            Embeddings embeddings, float offset) {
        int[] at = embeddings.positions();
        if (at.length > 0 && at[at.length - 1] >= inputs) {
            throw new DmlException("The embedded input " + at[at.length - 1] + " is not one of"
                    + " the model's " + inputs + " inputs.", "Embed inputs 0.." + (inputs - 1)
                    + ".");
        }
        if (family == ModelSpec.Family.CNN && !embeddings.isEmpty()) {
            throw new DmlException("A cnn reads pixels, which are not categories to embed.",
                    "Train the mlp or logistic family on embedded columns.");
        }
        if (family != ModelSpec.Family.MF) {
            if (offset != 0f) {
                throw new DmlException("optOffset sets where an mf model's score starts; this"
                        + " is a " + family.optionName() + " model.", "Drop optOffset.");
            }
            return;
        }
        int[] widths = embeddings.widths();
        if (inputs != 2 || embeddings.size() != 2 || widths[0] != widths[1]) {
            throw new DmlException("An mf model takes two embedded inputs, a user and an item"
                    + " index, with embeddings of one width; got " + inputs + " inputs, "
                    + embeddings + ".", "Call setInputs(2) and optEmbeddings(Embeddings.none()"
                    + ".add(0, users + 1, k).add(1, items + 1, k)).");
        }
        if (outputs > 2) {
            throw new DmlException("An mf model scores a rating (1 output) or a 0/1 label (2"
                    + " outputs), not " + outputs + " classes.", "Use a rating or a 0/1 label,"
                    + " or the mlp family with embedded columns.");
        }
    }

    /** Requires a batch of {@code [B, inputs]} features and as many labels. */
    static void requireBatch(ModelSpec spec, NDArray features, NDArray labels) {
        long[] s = features.getShape().getShape();
        if (s.length != 2 || s[1] != spec.inputs()) {
            throw new DmlException(
                    "The features have shape " + features.getShape() + ", but the model takes [B, "
                            + spec.inputs() + "].",
                    "Select " + spec.inputs() + " feature columns, or build the ModelSpec with"
                            + " setInputs(" + (s.length == 2 ? s[1] : "F") + ").");
        }
        if (labels.getShape().get(0) != s[0]) {
            throw new DmlException(
                    "The batch has " + s[0] + " feature rows but " + labels.getShape().get(0)
                            + " labels.",
                    "Slice features and labels with the same row range.");
        }
    }
}
