package dev.dml.options;

import static dev.dml.options.Declaration.choice;
import static dev.dml.options.Declaration.kernel;
import static dev.dml.options.Declaration.spec;

import java.util.List;

/**
 * The model a job trains: its family and sizes, or a user's own block. Declared here by concern;
 * {@link TrainOptions} gathers every group, so each option is {@code TrainOptions.NAME} wherever
 * it is used.
 */
interface ModelOptions {

    /** The model family. */
    Option<ModelFamily> MODEL = choice("model", ModelFamily.class,
            "the model family; mf is matrix factorization for recommenders: --features"
            + " USER,ITEM (ids, text or integers), a rating label (regression) or a 0/1 label"
            + " (implicit feedback)").example("logistic").fixed(ModelFamily.MLP)
            .java("setModel(ModelSpec.Family)").done();

    /** The hidden layer sizes of an MLP, the channels of a CNN, the factors of MF. */
    Option<List<Integer>> HIDDEN = spec("hidden", ValueType.sizes(),
            "64,32", "hidden layer sizes of an mlp (channels of a cnn; the embedding size of"
            + " mf)").example("64,32")
            .derived("64 for an mlp, 16 for mf", v -> v.get(MODEL) == ModelFamily.MLP ? List.of(64)
                    : v.get(MODEL) == ModelFamily.MF ? List.of(16) : null)
            .java("setModel(family, hidden...)").done();

    /** The shape of a cnn's images. */
    Option<List<Integer>> IMAGE = spec("image", ValueType.imageShape(),
            "HxW|HxWxC", "the images of a cnn: H rows of W pixels of C channels, each row of"
            + " the table holding one image's pixels channel-last (pixel by pixel, its C values"
            + " together, as numpy's reshape(n, -1) of [n, H, W, C] images)").example("32x32x3")
            .noDefault("a square of one channel, from the feature count").java("optImage")
            .done();

    /** A user's own DJL block. */
    Option<String> BLOCK = kernel("block", ValueType.variableName(), "VAR",
            "train your own DJL block instead of --model: a variable holding a"
            + " dev.dml.ray.model.BlockFactory, whose newBlock(inputs, outputs) every worker"
            + " calls (its class may be defined in a cell)").example("net")
            .noDefault("none: --model").java("setBlock").done();

    /** Distinct values above which a text feature is embedded, not one-hot encoded. */
    Option<Integer> EMBED_ABOVE = spec("embed-above", ValueType.count(), "N",
            "a text feature with more than N distinct training values gets a learnt embedding"
            + " (one input, its category's index) instead of one-hot inputs; an unseen or"
            + " missing value embeds to zeros. Such a model predicts in dml but is not saved"
            + " for plain DJL or PyTorch").example("32").fixed(1000)
            .java("opt(TrainOptions.EMBED_ABOVE, ...)").done();
}
