package dev.dml.options;

/**
 * The number type of the layers' products ({@code --precision}); the engine maps it to its
 * tensors' type.
 */
public enum Precision implements Choice {
    /** Everything in float32. */
    FP32,
    /** bfloat16 products: float32's range, 8 significant bits. */
    BF16,
    /** IEEE half products, with a loss scale so small gradients survive. */
    FP16;

    @Override
    public String toString() {
        return word();
    }
}
