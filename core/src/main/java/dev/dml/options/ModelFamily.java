package dev.dml.options;

/** The model family of {@code --model}. */
public enum ModelFamily implements Choice {
    /** Linear layers with ReLU between them. */
    MLP,
    /** One linear layer. */
    LOGISTIC,
    /** Convolutions over images, then linear layers. */
    CNN,
    /** Matrix factorization for recommenders. */
    MF;

    @Override
    public String toString() {
        return word();
    }
}
