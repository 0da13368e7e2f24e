package dev.dml.ray.model;

import ai.djl.ndarray.types.DataType;
import dev.dml.DmlException;

/**
 * The number type a model's matrix products run in: the engine's side of {@code --precision}
 * ({@link dev.dml.options.Precision}, mapped by {@link #of}). The parameters, their
 * gradients and the optimizer state stay float32 whatever it is: a 16-bit type only runs the
 * linear and convolution layers' products ({@link MixedPrecision}), as PyTorch's autocast does.
 */
public enum Precision {
    /** Everything in float32. */
    FP32(DataType.FLOAT32),
    /**
     * bfloat16 products: float32's range, 8 significant bits. DJL 0.35.1's PyTorch engine cannot
     * make such tensors (its native library aborts the JVM), so jobs refuse it before they start.
     */
    BF16(DataType.BFLOAT16),
    /** IEEE half products, with a loss scale ({@link LossScale}) so small gradients survive. */
    FP16(DataType.FLOAT16);

    private final DataType compute;

    Precision(DataType compute) {
        this.compute = compute;
    }

    /**
     * The precision of a {@code --precision} value: the one place the option's words meet the
     * engine's types.
     *
     * @param option the option's value
     * @return the precision of the same name
     */
    public static Precision of(dev.dml.options.Precision option) {
        return valueOf(option.name());
    }

    /** Returns the option's value. @return e.g. {@code bf16} */
    public dev.dml.options.Precision option() {
        return dev.dml.options.Precision.valueOf(name());
    }

    /**
     * Refuses a precision the workers' engine cannot run, before anything asks it to: DJL
     * 0.35.1's PyTorch native library maps no type code to bfloat16.
     */
    public void requireEngineSupport() {
        if (this == BF16) {
            throw new DmlException("{precision=bf16} needs bfloat16 tensors, which DJL 0.35.1's"
                    + " PyTorch engine cannot make.", "Use {precision=fp16} on GPUs, or leave"
                    + " {precision} out.");
        }
    }

    /** The type the products run in. */
    DataType compute() {
        return compute;
    }

    /** Whether the loss is scaled: half floats flush gradients under 6e-8 to zero. */
    boolean scalesLoss() {
        return this == FP16;
    }
}
