package dev.dml.ray.train;

import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.model.Precision;

/**
 * The optional settings of {@link TrainSpecBuilder} that set one option but take more than its
 * value as a cell writes it: an image's three sizes, a {@code float} learning rate, the engine's
 * {@link Precision}, a worker count or an elastic range. Each sets the option of {@link
 * TrainOptions} of the same name through {@link #opt(Option, Object)}; a value is checked at
 * once. The other one-option setters ({@code optEpochs}, {@code optBatchSize}, ...) are derived
 * from the declarations into {@code TrainSetters}, which the builder implements.
 */
public abstract sealed class TrainingSettings permits TrainSpecBuilder {

    TrainingSettings() {}

    /**
     * Sets an option of {@link TrainOptions}, as {@code %dml train --name value} does.
     *
     * @param option an option the spec takes ({@link Option.Target#SPEC})
     * @param value its value, checked now
     * @param <T> the value's type
     * @return this builder
     */
    public abstract <T> TrainSpecBuilder opt(Option<T> option, T value);

    /**
     * Sets the shape of a cnn's images ({@code --image HxWxC}): each row holds one image's
     * {@code height * width * channels} pixels channel-last, as numpy's {@code reshape(n, -1)}
     * of {@code [n, H, W, C]} images. Left out, a cnn takes square one-channel images.
     *
     * @param height rows of pixels, at least 1
     * @param width pixels per row, at least 1
     * @param channels values per pixel (3 for RGB), at least 1
     * @return this builder
     */
    public TrainSpecBuilder optImage(int height, int width, int channels) {
        return opt(TrainOptions.IMAGE, java.util.List.of(height, width, channels));
    }

    /**
     * Sets the learning rate ({@code --lr}); it overrides that of {@link
     * TrainSpecBuilder#optOptimizer}.
     *
     * @param lr a positive rate
     * @return this builder
     */
    public TrainSpecBuilder optLearningRate(float lr) {
        return opt(TrainOptions.LR, (double) lr);
    }

    /**
     * Sets the number type of the layers' products ({@code --precision}): {@link Precision#FP16}
     * runs the linear and convolution layers in half floats on GPUs, with a dynamic loss scale,
     * while the parameters, gradients and optimizer stay float32. {@link Precision#BF16} is
     * refused: DJL 0.35.1's PyTorch engine has no bfloat16 tensors.
     *
     * @param precision the type; {@link Precision#FP32} by default
     * @return this builder
     */
    public TrainSpecBuilder optPrecision(Precision precision) {
        return opt(TrainOptions.PRECISION, precision == null ? null : precision.option());
    }

    /**
     * Sets the number of workers; a staged strategy runs {@code replicas * stages}.
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder optWorkers(int n) {
        return opt(TrainOptions.WORKERS, WorkerRange.of(n));
    }

    /**
     * Makes a data-parallel job elastic: it starts with what the cluster can place (at least
     * {@code min}), shrinks when lost workers cannot be replaced, and grows when nodes join.
     * The rows stay in {@code max} shards, so every step trains {@code max} batches.
     *
     * @param min at least 1
     * @param max at least {@code min}
     * @return this builder
     */
    public TrainSpecBuilder optWorkers(int min, int max) {
        return opt(TrainOptions.WORKERS, new WorkerRange(min, max));
    }
}
