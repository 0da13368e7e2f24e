package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * The training loss of a model. Every loss is the <em>mean</em> over the batch, so the gradient
 * of a batch of {@code 2B} rows equals the average of the gradients of its two halves; data
 * parallel workers therefore average (not sum) their gradients.
 */
public enum Objective {
    /** Softmax cross-entropy on {@code k} logits; labels are class indices {@code [B]}. */
    SOFTMAX_CROSS_ENTROPY,
    /** Sigmoid binary cross-entropy on one logit; labels are {@code 0/1} {@code [B]}. */
    SIGMOID_BINARY_CROSS_ENTROPY,
    /** Mean squared error {@code mean((y - pred)^2)}; labels are real {@code [B]} targets. */
    L2;

    /**
     * Computes the mean loss of a batch.
     *
     * @param output the model output {@code [B, k]}
     * @param labels the labels {@code [B]}
     * @return a scalar array, attached to the output's manager
     */
    public NDArray loss(NDArray output, NDArray labels) {
        switch (this) {
            case SOFTMAX_CROSS_ENTROPY -> {
                NDArray logp = output.logSoftmax(1);
                NDArray idx = labels.toType(DataType.INT64, false).reshape(-1);
                NDArray picked = logp.get(new NDIndex().addAllDim().addPickDim(idx));
                return picked.mean().neg();
            }
            case SIGMOID_BINARY_CROSS_ENTROPY -> {
                NDArray z = output.reshape(-1);
                NDArray y = labels.toType(DataType.FLOAT32, false).reshape(-1);
                // max(z, 0) - z * y + log(1 + exp(-|z|)), stable for large |z|
                NDArray softplus = z.abs().neg().exp().add(1f).log().add(z.maximum(0f));
                return softplus.sub(z.mul(y)).mean();
            }
            case L2 -> {
                NDArray pred = output.reshape(-1);
                NDArray y = labels.toType(DataType.FLOAT32, false).reshape(-1);
                return pred.sub(y).square().mean();
            }
            default -> throw new AssertionError(this);
        }
    }

    /**
     * Turns model outputs into predictions: class probabilities {@code [B, k]} for softmax, the
     * positive-class probability {@code [B, 1]} for sigmoid, the value itself for L2.
     *
     * @param output the model output
     * @return the predictions, attached to the output's manager
     */
    public NDArray predictions(NDArray output) {
        switch (this) {
            case SOFTMAX_CROSS_ENTROPY:
                return output.softmax(1);
            case SIGMOID_BINARY_CROSS_ENTROPY:
                return ai.djl.nn.Activation.sigmoid(output);
            default:
                return output.reshape(new Shape(output.getShape().get(0), -1));
        }
    }

    /**
     * Returns the class a row of predictions names: the most probable one, or for sigmoid the
     * positive class when its probability is above 0.5.
     *
     * @param predictions row-major predictions, {@code outputs} per row
     * @param row the row
     * @param outputs predictions per row
     * @return the class index
     */
    public int predictedClass(float[] predictions, int row, int outputs) {
        int at = row * outputs;
        if (this == SIGMOID_BINARY_CROSS_ENTROPY) {
            return predictions[at] > 0.5f ? 1 : 0;
        }
        int best = 0;
        for (int k = 1; k < outputs; k++) {
            if (predictions[at + k] > predictions[at + best]) {
                best = k;
            }
        }
        return best;
    }

    /**
     * Returns the score of the positive class for a ROC AUC: the sigmoid's probability, or
     * class 1's of two softmax outputs.
     *
     * @param predictions row-major predictions
     * @param row the row
     * @param outputs predictions per row
     * @return the score; 0 when there is no positive class (more than two classes)
     */
    public float positiveScore(float[] predictions, int row, int outputs) {
        if (this == SIGMOID_BINARY_CROSS_ENTROPY) {
            return predictions[row * outputs];
        }
        return outputs == 2 ? predictions[row * outputs + 1] : 0f;
    }

    /**
     * Tells whether a model with this objective has a positive class, so a ROC AUC.
     *
     * @param outputs the model's outputs
     * @return {@code true} for sigmoid, or softmax over two classes
     */
    public boolean hasPositiveClass(int outputs) {
        return this == SIGMOID_BINARY_CROSS_ENTROPY || this == SOFTMAX_CROSS_ENTROPY
                && outputs == 2;
    }
}
