package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;

/**
 * Matrix factorization over a row {@code [user index, item index]}: the score is {@code u . v +
 * b_user + b_item + b + offset}, with learnt user and item embeddings {@code u}, {@code v} (of
 * {@code factors} each), biases, and a fixed {@code offset} (the training ratings' mean, so that
 * training starts from the mean predictor instead of walking the global bias there). Index 0 (an
 * unseen or missing id) has a zero embedding and bias: such a row predicts from the other id
 * alone.
 *
 * <p>With one output the score is a rating (L2 loss). With two it is the logits {@code [0,
 * score]}: softmax over them is {@code sigmoid(score)}, the probability of class 1 (implicit
 * feedback, a 0/1 label), trained with the classifiers' cross-entropy.
 */
final class MatrixFactorization extends AbstractBlock {

    private static final byte VERSION = 1;

    private final Parameter users;
    private final Parameter items;
    private final Parameter userBias;
    private final Parameter itemBias;
    private final Parameter bias;
    private final float offset;
    private final int outputs;

    MatrixFactorization(Embeddings ids, float offset, int outputs) {
        super(VERSION);
        int[] rows = ids.rows();
        int factors = ids.widths()[0];
        this.users = addParameter(EmbeddingBlock.table("users", rows[0], factors));
        this.items = addParameter(EmbeddingBlock.table("items", rows[1], factors));
        this.userBias = addParameter(biases("user_bias", rows[0]));
        this.itemBias = addParameter(biases("item_bias", rows[1]));
        this.bias = addParameter(Parameter.builder().setName("bias")
                .setType(Parameter.Type.BIAS).optShape(new Shape(1)).build());
        this.offset = offset;
        this.outputs = outputs;
    }

    /** One bias per id, a {@code [rows, 1]} table so that it is looked up like an embedding. */
    private static Parameter biases(String name, long rows) {
        return Parameter.builder().setName(name).setType(Parameter.Type.BIAS)
                .optShape(new Shape(rows, 1)).build();
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
            PairList<String, Object> params) {
        NDArray x = inputs.singletonOrThrow();
        var d = x.getDevice();
        NDArray u = EmbeddingBlock.lookup(x, 0, store.getValue(users, d, training));
        NDArray v = EmbeddingBlock.lookup(x, 1, store.getValue(items, d, training));
        NDArray score = u.mul(v).sum(new int[] {1}, true)
                .add(EmbeddingBlock.lookup(x, 0, store.getValue(userBias, d, training)))
                .add(EmbeddingBlock.lookup(x, 1, store.getValue(itemBias, d, training)))
                .add(store.getValue(bias, d, training)).add(offset);
        return new NDList(outputs == 1 ? score : score.zerosLike().concat(score, 1));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputs) {
        return new Shape[] {new Shape(inputs[0].get(0), outputs)};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... shapes) {
        // no children: the tables' shapes are known from the spec
    }

    @Override
    public String toString() {
        return "MatrixFactorization(outputs=" + outputs + ", offset=" + offset + ")";
    }
}
