package dev.dml.options;

import dev.dml.options.Option.Target;
import java.util.List;
import java.util.Optional;

/**
 * Every option of {@code %dml train}, each declared once with its flag, value type, default,
 * help line and Java words, grouped by concern: the data ({@link DataOptions}), the model
 * ({@link ModelOptions}), the training loop ({@link LoopOptions}), the workers and their nodes
 * ({@link ScalingOptions}), how workers agree ({@link SyncOptions}) and how the job runs and
 * ends ({@link RunOptions}). This class gathers the groups, so each option is {@code
 * TrainOptions.NAME} wherever it is used. The grammar, {@code %dml help train}, the option
 * reference ({@code docs/train-options.md}, generated) and {@code TrainSpec.builder().opt(...)}
 * read these declarations; a new option is one more constant in its group plus the code that
 * uses its value, and a place in {@link #ALL}.
 *
 * <p>Options with {@link Target#SPEC} pass to the training spec as they are; {@link
 * Target#KERNEL} ones are resolved by the notebook side (a table variable, job control).
 */
public final class TrainOptions implements DataOptions, ModelOptions, LoopOptions,
        ScalingOptions, SyncOptions, RunOptions {

    private TrainOptions() {}

    /** Every option, in the order help lists them. */
    public static final List<Option<?>> ALL = List.of(LABEL, FEATURES, READ_ON_WORKERS,
            S3_ENDPOINT, DATA_CACHE_MB, MODEL, HIDDEN, IMAGE, BLOCK, EMBED_ABOVE, EPOCHS,
            BATCH_SIZE, STEPS_PER_EPOCH, ACCUMULATE, COMPRESS, TRANSPORT, BUCKET_MB,
            SHARD_OPTIMIZER, SHARD_GRADIENTS, SYNC, PS, SHUFFLE, STRATIFY, OPTIMIZER, LR,
            LR_SCHEDULE, WARMUP, WEIGHT_DECAY, CLIP_NORM, EARLY_STOP, WORKERS, CPUS_PER_WORKER,
            GPUS_PER_WORKER, PRECISION, PLACEMENT, STRATEGY, STAGES, BALANCE, MICROBATCHES,
            REPLICAS, SCHEDULE, VALIDATION, CHECKPOINT_DIR, CHECKPOINT_EVERY, CHECKPOINT_STORE,
            CHECKPOINT_FAILURE, RESUME, BUDGET, DEADLINE, MAX_FAILURES, SEED, RECORD, CLUSTER,
            PLAN, INTO, BACKGROUND, DETACH, NO_PLOTS, DEBUG);

    /**
     * Finds an option by name.
     *
     * @param name the flag without {@code --}, e.g. {@code batch-size}
     * @return the option
     */
    public static Optional<Option<?>> byName(String name) {
        for (Option<?> o : ALL) {
            if (o.name().equals(name)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /** Stages of a staged strategy: {@code --stages 3} is 3, {@code --stages 2,1} is 2. */
    public static int stageCount(OptionValues v) {
        List<Integer> s = v.get(STAGES);
        return s.size() == 1 ? s.get(0) : s.size();
    }
}
