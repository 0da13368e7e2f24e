package dev.dml.ray.train.settings;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureVocabulary;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.Embeddings;
import dev.dml.ray.model.ModelSpec;
import java.util.Arrays;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * The embeddings a model needs for the embedded columns of its selection ({@link
 * FeatureVocabulary}), and the matrix factorization model ({@code --model mf}).
 */
public final class ModelEmbeddings {

    private ModelEmbeddings() {}

    /** One embedding per embedded column: its categories plus index 0, the default width. */
    public static Embeddings of(ColumnSelection columns) {
        FeatureVocabulary v = columns.vocabulary();
        int[] at = v.indexInputs(columns.features());
        Embeddings e = Embeddings.none();
        int i = 0;
        for (String f : columns.features()) {
            if (v.embeds(f)) {
                int n = v.categories().get(f).size();
                e = e.add(at[i++], n + 1, Embeddings.defaultWidth(n));
            }
        }
        return e;
    }

    /** Refuses a given spec whose embedded inputs are not those of the selection. */
    public static void requireSame(ModelSpec given, Embeddings embeddings,
            ColumnSelection columns) {
        int[] want = embeddings.positions();
        if (!Arrays.equals(given.embeddings().positions(), want)
                || !Arrays.equals(given.embeddings().rows(), embeddings.rows())) {
            throw new DmlException("The ModelSpec embeds " + given.embeddings() + ", but the"
                    + " selected columns need " + embeddings + " (columns with more than"
                    + " {embed-above} values become one index input each).",
                    "Build the ModelSpec with optEmbeddings(...) for inputs "
                            + Arrays.toString(want) + ", or let TrainSpec size the model with"
                            + " setModel(family).");
        }
    }

    /** The mf model of two id columns: factors from {@code --hidden}, one score. */
    public static ModelSpec matrixFactorization(OptionValues v, ColumnSelection columns,
            Table train, int classes) {
        List<String> f = columns.features();
        if (f.size() != 2) {
            throw new DmlException("{model=mf} factorizes two id columns, a user and an item;"
                    + " the features are " + f.size() + " columns " + f + ".",
                    "Pass {features} USER,ITEM, e.g. {features=user_id,item_id}.");
        }
        List<Integer> hidden = v.get(TrainOptions.HIDDEN);
        if (hidden.size() != 1) {
            throw new DmlException("{model=mf} takes one {hidden} size, the number of factors;"
                    + " got " + hidden + ".", "Pass one size, e.g. {hidden=16}.");
        }
        boolean ratings = columns.labelKind() == LabelKind.REGRESSION;
        if (!ratings && classes > 2) {
            throw new DmlException("{model=mf} scores a rating or a 0/1 label; '"
                    + columns.label() + "' has " + classes + " classes.", "Train on a rating"
                    + " (a number), a 0/1 label, or use {model=mlp}.");
        }
        FeatureVocabulary vocab = columns.vocabulary();
        int k = hidden.get(0);
        Embeddings ids = Embeddings.none()
                .add(0, vocab.categories().get(f.get(0)).size() + 1, k)
                .add(1, vocab.categories().get(f.get(1)).size() + 1, k);
        return ModelSpec.builder(ModelSpec.Family.MF).setInputs(2).setOutputs(ratings ? 1 : 2)
                .optEmbeddings(ids).optSeed(v.get(TrainOptions.SEED))
                // start from the mean rating: with adam's steps of about lr, the global bias
                // would otherwise take thousands of steps to walk to it
                .optOffset(ratings ? (float) train.numberColumn(columns.label()).mean() : 0f)
                .build();
    }
}
