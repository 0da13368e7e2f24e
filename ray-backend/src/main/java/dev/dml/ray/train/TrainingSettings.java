package dev.dml.ray.train;

import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.model.Precision;

/**
 * The optional settings of {@link TrainSpecBuilder} that each set one option: how the model
 * trains (epochs, batches and their row order, the learning rate and its schedule, weight
 * decay, gradient clipping, gradient compression, early stopping), on how many workers with
 * what resources, and how the job checkpoints and survives failures. Each is a typed shortcut
 * for {@link #opt(Option, Object)} on the option of {@link TrainOptions} of the same name,
 * whose declaration holds its default and help; a value is checked at once. The builder
 * itself keeps what is more than one option: the data, the model, the strategy, listeners.
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
     * Sets the number of epochs ({@code --epochs}).
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder optEpochs(int n) {
        return opt(TrainOptions.EPOCHS, n);
    }

    /**
     * Sets the rows each worker (each replica of a staged job) trains on per step. Left out,
     * 64, or on a small table a worker's rows / 16 (at least 4), so an epoch has about 16 steps.
     *
     * @param n at least 1
     * @return this builder
     */
    public TrainSpecBuilder optBatchSize(int n) {
        return opt(TrainOptions.BATCH_SIZE, n);
    }

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
     * Sets whether rows are shuffled ({@code --shuffle}, on by default): dealt to the workers
     * in a seeded order, and read in a new seeded order each epoch ({@link RowOrder}).
     *
     * @param on {@code false} trains in the table's order
     * @return this builder
     */
    public TrainSpecBuilder optShuffle(boolean on) {
        return opt(TrainOptions.SHUFFLE, on);
    }

    /**
     * Sets whether data-parallel workers shard the optimizer ({@code --shard-optimizer}, off
     * by default), as ZeRO-1: each keeps and updates the optimizer state of 1/N of the
     * parameters only, and the job trains to the parameters it trains to unsharded.
     *
     * @param on {@code true} to shard it over the workers
     * @return this builder
     */
    public TrainSpecBuilder optShardOptimizer(boolean on) {
        return opt(TrainOptions.SHARD_OPTIMIZER, on);
    }

    /**
     * Sets whether every worker gets the same mix of classes ({@code --stratify}).
     *
     * @param on {@code true} to deal each class round-robin over the workers
     * @return this builder
     */
    public TrainSpecBuilder optStratify(boolean on) {
        return opt(TrainOptions.STRATIFY, on);
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
     * Sets how the learning rate changes over the job ({@code --lr-schedule}): {@code
     * constant}; {@code step:EVERY:GAMMA}, multiplied by GAMMA every EVERY epochs; or {@code
     * cosine}, a half cosine from the rate to 0 at the job's last step, after any warm-up.
     *
     * @param schedule the schedule, such as {@code "cosine"} or {@code "step:10:0.5"}
     * @return this builder
     */
    public TrainSpecBuilder optLrSchedule(String schedule) {
        return opt(TrainOptions.LR_SCHEDULE, TrainOptions.LR_SCHEDULE.checkWord(schedule));
    }

    /**
     * Raises the learning rate linearly over the job's first steps ({@code --warmup}): update
     * {@code t} (from 0) uses {@code (t + 1) / steps} of the scheduled rate.
     *
     * @param steps the warm-up's global steps; 0 for none
     * @return this builder
     */
    public TrainSpecBuilder optWarmup(int steps) {
        return opt(TrainOptions.WARMUP, steps);
    }

    /**
     * Sets the weight decay of the weights, not of biases or other 1-d parameters ({@code
     * --weight-decay}): decoupled for Adam (AdamW), added to the gradient for SGD (L2).
     *
     * @param decay 0 or more
     * @return this builder
     */
    public TrainSpecBuilder optWeightDecay(double decay) {
        return opt(TrainOptions.WEIGHT_DECAY, decay);
    }

    /**
     * Clips the averaged gradients to a global L2 norm before each update ({@code
     * --clip-norm}); data parallelism only.
     *
     * @param norm above 0
     * @return this builder
     */
    public TrainSpecBuilder optClipNorm(double norm) {
        return opt(TrainOptions.CLIP_NORM, norm);
    }

    /**
     * Stops the job when the validation loss has not improved for {@code patience} epochs, and
     * keeps the parameters of its best epoch ({@code --early-stop}); needs validation rows.
     *
     * @param patience epochs, at least 1
     * @return this builder
     */
    public TrainSpecBuilder optEarlyStop(int patience) {
        return opt(TrainOptions.EARLY_STOP, patience);
    }

    /**
     * Sets how workers compress the gradients they exchange ({@code --compress}): {@code none},
     * {@code fp16}, {@code bf16}, {@code int8}, {@code topk:RATIO} or {@code powersgd:RANK},
     * with error feedback.
     *
     * @param scheme the scheme, such as {@code "topk:0.01"}
     * @return this builder
     */
    public TrainSpecBuilder optCompress(String scheme) {
        return opt(TrainOptions.COMPRESS, TrainOptions.COMPRESS.checkWord(scheme));
    }

    /**
     * Sets how data-parallel workers agree on the parameters ({@code --sync}): {@code sync}
     * all-reduces every step; {@code async} pushes each worker's update to parameter servers
     * and pulls theirs without waiting; {@code ssp:S} does so at most {@code S} steps ahead of
     * the slowest worker.
     *
     * @param mode {@code "sync"}, {@code "async"} or {@code "ssp:S"}
     * @return this builder
     */
    public TrainSpecBuilder optSync(String mode) {
        return opt(TrainOptions.SYNC, TrainOptions.SYNC.checkWord(mode));
    }

    /**
     * Sets the parameter-server actors of an asynchronous job ({@code --ps}), each holding whole
     * parameter tensors, balanced by size.
     *
     * @param n at least 1, at most the workers
     * @return this builder
     */
    public TrainSpecBuilder optParameterServers(int n) {
        return opt(TrainOptions.PS, n);
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
     * Sets the seed of the validation split and of a model set by family.
     *
     * @param s the seed
     * @return this builder
     */
    public TrainSpecBuilder optSeed(long s) {
        return opt(TrainOptions.SEED, s);
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

    /**
     * Sets the CPUs Ray reserves per worker (0 lets workers share CPUs).
     *
     * @param cpus 0 or more
     * @return this builder
     */
    public TrainSpecBuilder optCpusPerWorker(double cpus) {
        return opt(TrainOptions.CPUS_PER_WORKER, cpus);
    }

    /**
     * Sets the GPUs Ray reserves per worker. The job fails at once when the cluster has fewer
     * GPUs than {@code workers * gpus}.
     *
     * @param gpus 0 or more
     * @return this builder
     */
    public TrainSpecBuilder optGpusPerWorker(double gpus) {
        return opt(TrainOptions.GPUS_PER_WORKER, gpus);
    }

    /**
     * Sets the steps between checkpoints ({@code --checkpoint-every}).
     *
     * @param everySteps at least 1
     * @return this builder
     */
    public TrainSpecBuilder optCheckpointEvery(int everySteps) {
        return opt(TrainOptions.CHECKPOINT_EVERY, everySteps);
    }

    /**
     * Continues from the newest checkpoint of this job's model in the checkpoint folder. Needs
     * {@link #optCheckpoints}.
     *
     * @param resume {@code true} to resume
     * @return this builder
     */
    public TrainSpecBuilder optResume(boolean resume) {
        return opt(TrainOptions.RESUME, resume);
    }

    /**
     * Sets how many lost workers the job recovers from before it fails ({@code
     * --max-failures}, default 3); 0 fails at the first loss.
     *
     * @param failures at least 0
     * @return this builder
     */
    public TrainSpecBuilder optMaxFailures(int failures) {
        return opt(TrainOptions.MAX_FAILURES, failures);
    }
}
