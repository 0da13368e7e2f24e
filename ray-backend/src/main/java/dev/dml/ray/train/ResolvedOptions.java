package dev.dml.ray.train;

import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The options of a built {@link TrainSpec}: every option of {@code %dml train} through {@link
 * #get(Option)}, with typed getters for the ones a job reads most. The spec adds what the
 * options resolve to (data, model, optimizer, strategy, workers) and what is set past them.
 */
public abstract sealed class ResolvedOptions permits TrainSpec {

    /** The options as given and checked; a value not given reads as its declared default. */
    final OptionValues options;

    ResolvedOptions(OptionValues options) {
        this.options = options;
    }

    /**
     * Returns an option's value: the one given, else its declared default.
     *
     * @param option an option of {@link TrainOptions}
     * @param <T> the value's type
     * @return the value, or null for an option with no value and no default
     */
    public <T> T get(Option<T> option) {
        return options.get(option);
    }

    /**
     * Returns the options that were given.
     *
     * @return the values
     */
    public OptionValues options() {
        return options;
    }

    /**
     * Returns the number of epochs.
     *
     * @return at least 1
     */
    public int epochs() {
        return options.get(TrainOptions.EPOCHS);
    }

    /**
     * Returns the batch size of each worker; the global batch is this times {@link #workers()}.
     *
     * @return rows per worker per step
     */
    public int batchSize() {
        return options.get(TrainOptions.BATCH_SIZE);
    }

    /**
     * Returns the batches a data-parallel worker adds up before each optimizer step.
     *
     * @return at least 1
     */
    public int accumulate() {
        return options.get(TrainOptions.ACCUMULATE);
    }

    /**
     * Returns the seed of the validation split and of a model built from a family.
     *
     * @return the seed
     */
    public long seed() {
        return options.get(TrainOptions.SEED);
    }

    /**
     * Returns the CPUs Ray reserves for each worker.
     *
     * @return CPUs, 0 or more
     */
    public double cpusPerWorker() {
        return options.get(TrainOptions.CPUS_PER_WORKER);
    }

    /**
     * Returns the GPUs Ray reserves for each worker.
     *
     * @return GPUs, 0 or more
     */
    public double gpusPerWorker() {
        return options.get(TrainOptions.GPUS_PER_WORKER);
    }

    /**
     * Returns the checkpoint folder, if set.
     *
     * @return the folder
     */
    public Optional<Path> checkpointDir() {
        return Optional.ofNullable(options.get(TrainOptions.CHECKPOINT_DIR)).map(Path::of);
    }

    /**
     * Returns the checkpoint interval.
     *
     * @return steps between checkpoints, 0 without checkpoints
     */
    public int checkpointEvery() {
        return checkpointDir().isPresent() ? options.get(TrainOptions.CHECKPOINT_EVERY) : 0;
    }

    /**
     * Tells whether the job continues from the newest good checkpoint.
     *
     * @return {@code true} to resume
     */
    public boolean resume() {
        return options.get(TrainOptions.RESUME);
    }
}
