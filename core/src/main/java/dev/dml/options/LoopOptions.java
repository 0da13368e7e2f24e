package dev.dml.options;

import static dev.dml.options.Declaration.choice;
import static dev.dml.options.Declaration.spec;

/**
 * The training loop: epochs, batches, row order, the optimizer and its learning rate. Declared
 * here by concern; {@link TrainOptions} gathers every group, so each option is {@code
 * TrainOptions.NAME} wherever it is used.
 */
interface LoopOptions {

    /** Passes over the training rows. */
    Option<Integer> EPOCHS = spec("epochs", ValueType.count(), "N",
            "passes over the training rows").example("3").fixed(1).java("optEpochs").done();

    /** Rows per worker (per replica) and step. */
    Option<Integer> BATCH_SIZE = spec("batch-size", ValueType.count(), "B",
            "rows per worker per step").example("128")
            .derived("64; on a small table, a worker's rows / 16 (at least 4), so an epoch has"
                    + " about 16 steps", v -> 64).java("optBatchSize").done();

    /** A seeded, new row order every epoch. */
    Option<Boolean> SHUFFLE = spec("shuffle", ValueType.onOff(), null,
            "shuffle the rows: a seeded order, new each epoch (--no-shuffle keeps the table's"
                    + " order)").example("true").fixed(true).java("optShuffle").done();

    /** A cap on the steps of each epoch, as Keras's steps_per_epoch. */
    Option<Integer> STEPS_PER_EPOCH = spec("steps-per-epoch",
            ValueType.count(), "N", "end each epoch after at most N steps (each epoch then"
            + " trains on the first N batches of its own row order)").example("200")
            .noDefault("every training row once").java("opt(TrainOptions.STEPS_PER_EPOCH, ...)")
            .done();

    /** Shards with the same class mix. */
    Option<Boolean> STRATIFY = spec("stratify", ValueType.onOff(), null,
            "give every worker the same mix of classes").example("true").fixed(false)
            .java("optStratify").done();

    /** Batches a data-parallel worker adds up before each optimizer step. */
    Option<Integer> ACCUMULATE = spec("accumulate", ValueType.count(), "K",
            "batches each worker adds up before each optimizer step (data parallelism): an"
            + " update sees K x batch-size rows per worker, in the memory of one batch")
            .example("4").fixed(1).java("opt(TrainOptions.ACCUMULATE, ...)").done();

    /** The optimizer. */
    Option<OptimizerKind> OPTIMIZER = choice("optimizer",
            OptimizerKind.class, "the optimizer (sgd with momentum 0.9)")
            .example("sgd").fixed(OptimizerKind.ADAM).java("optOptimizer").done();

    /** The learning rate. */
    Option<Double> LR = spec("lr", ValueType.positive(), "RATE",
            "the learning rate").example("0.001")
            .derived("0.001 for adam, 0.05 for sgd",
                    v -> v.get(OPTIMIZER) == OptimizerKind.SGD ? 0.05 : 0.001)
            .java("optLearningRate").done();

    /** How the learning rate changes over the job. */
    Option<LrSchedule> LR_SCHEDULE = spec("lr-schedule", ValueType.lrSchedule(),
            "constant|step:EVERY:GAMMA|cosine", "how the learning rate changes: constant;"
            + " multiplied by GAMMA every EVERY epochs; or decayed along a half cosine to 0 at"
            + " the job's last step (after any --warmup)").example("step:10:0.5")
            .fixed(LrSchedule.CONSTANT).java("optLrSchedule").done();

    /** Steps of linear warm-up. */
    Option<Integer> WARMUP = spec("warmup", ValueType.countOrNone(), "STEPS",
            "raise the learning rate linearly from lr/STEPS to --lr over the first STEPS steps"
            + " of the job, then follow --lr-schedule").example("100").fixed(0)
            .java("optWarmup").done();

    /** Weight decay. */
    Option<Double> WEIGHT_DECAY = spec("weight-decay", ValueType.nonNegative(),
            "W", "decay the weights (not biases or other 1-d parameters) by W: decoupled from"
            + " the gradient for adam (AdamW), added to it as W x weight for sgd (L2)")
            .example("0.01").fixed(0.0).java("optWeightDecay").done();

    /** A cap on the gradients' global norm. */
    Option<Double> CLIP_NORM = spec("clip-norm", ValueType.positive(), "C",
            "scale the averaged gradients down to a global L2 norm of C when it is larger"
            + " (data parallelism; every worker clips the same all-reduced gradients, or with"
            + " --compress topk its own, to C / sqrt(workers), before its momentum)")
            .example("1.0").noDefault("none").java("optClipNorm").done();

    /** Epochs without a better validation loss before the job stops. */
    Option<Integer> EARLY_STOP = spec("early-stop", ValueType.count(),
            "PATIENCE", "stop when the validation loss has not improved for PATIENCE epochs,"
            + " and keep the parameters of the epoch with the best validation loss (needs"
            + " --validation)").example("3").noDefault("none").java("optEarlyStop").done();

    /** The seed of the initial weights and of the validation split. */
    Option<Long> SEED = spec("seed", ValueType.integer(), "S",
            "seed of the initial weights, the validation split and the row order")
            .example("7").fixed(42L).java("optSeed").done();
}
