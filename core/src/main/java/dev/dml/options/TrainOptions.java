package dev.dml.options;

import dev.dml.options.Option.Target;
import java.util.List;
import java.util.Optional;

/**
 * Every option of {@code %dml train}, each declared once: here are its flag, value type,
 * default, help line and Java words. The grammar, {@code %dml help train}, the option reference
 * ({@code docs/train-options.md}, generated) and {@code TrainSpec.builder().opt(...)} read these
 * declarations; a new option is one more constant here plus the code that uses its value.
 *
 * <p>Options with {@link Target#SPEC} pass to the training spec as they are; {@link
 * Target#KERNEL} ones are resolved by the notebook side (a table variable, job control).
 */
public final class TrainOptions {

    private TrainOptions() {}

    /** The column to predict. */
    public static final Option<String> LABEL = kernel("label", ValueType.text(), "COLUMN",
            "the column to predict (required)").example("is_fraud")
            .noDefault("none: required").java("ColumnSelection.setLabel").done();

    /** Workers read the data files themselves; the kernel never holds the table. */
    public static final Option<Boolean> READ_ON_WORKERS = kernel("read-on-workers",
            ValueType.onOff(), null, "the data is a Parquet or Arrow IPC file, a folder of them,"
            + " a file:// URL that every node reaches, or an s3:// object or prefix: each"
            + " worker reads only its own row groups (record batches), through its node's"
            + " cache, and the kernel never holds the table").example("true").fixed(false)
            .java("TrainSpecBuilder.setFiles")
            .done();

    /** The endpoint of an S3-compatible store, for s3:// data. */
    public static final Option<String> S3_ENDPOINT = kernel("s3-endpoint", ValueType.text(),
            "URL", "with s3:// data, the URL of an S3-compatible store (MinIO, Ceph, Cloudflare"
            + " R2, GCS's XML API), addressed path-style; credentials still come from the AWS"
            + " default chain").example("http://127.0.0.1:9000")
            .noDefault("AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else AWS itself")
            .java("TrainSpecBuilder.optS3Endpoint").done();

    /** The size of each node's cache of worker-read data. */
    public static final Option<Integer> DATA_CACHE_MB = spec("data-cache-mb",
            ValueType.countOrNone(), "MB", "with --read-on-workers, keep up to MB megabytes of"
            + " decoded row groups on each node's local disk ($DML_DATA_CACHE, else"
            + " dml-data-cache-<user> in the temp folder, owner-only), least recently used out"
            + " first, so restarted workers and later jobs read no file again; 0 caches"
            + " nothing").example("4096").fixed(2048)
            .java("opt(TrainOptions.DATA_CACHE_MB, ...)").done();

    /** The feature columns. */
    public static final Option<List<String>> FEATURES = kernel("features", ValueType.names(),
            "A,B,...", "the feature columns").example("amount,v1")
            .noDefault("every numeric column but the label").java("ColumnSelection.addFeatures")
            .done();

    /** The model family. */
    public static final Option<ModelFamily> MODEL = choice("model", ModelFamily.class,
            "the model family; mf is matrix factorization for recommenders: --features"
            + " USER,ITEM (ids, text or integers), a rating label (regression) or a 0/1 label"
            + " (implicit feedback)").example("logistic").fixed(ModelFamily.MLP)
            .java("setModel(ModelSpec.Family)").done();

    /** The hidden layer sizes of an MLP, the channels of a CNN, the factors of MF. */
    public static final Option<List<Integer>> HIDDEN = spec("hidden", ValueType.sizes(),
            "64,32", "hidden layer sizes of an mlp (channels of a cnn; the embedding size of"
            + " mf)").example("64,32")
            .derived("64 for an mlp, 16 for mf", v -> v.get(MODEL) == ModelFamily.MLP ? List.of(64)
                    : v.get(MODEL) == ModelFamily.MF ? List.of(16) : null)
            .java("setModel(family, hidden...)").done();

    /** The shape of a cnn's images. */
    public static final Option<List<Integer>> IMAGE = spec("image", ValueType.imageShape(),
            "HxW|HxWxC", "the images of a cnn: H rows of W pixels of C channels, each row of"
            + " the table holding one image's pixels channel-last (pixel by pixel, its C values"
            + " together, as numpy's reshape(n, -1) of [n, H, W, C] images)").example("32x32x3")
            .noDefault("a square of one channel, from the feature count").java("optImage")
            .done();

    /** A user's own DJL block. */
    public static final Option<String> BLOCK = kernel("block", ValueType.variableName(), "VAR",
            "train your own DJL block instead of --model: a variable holding a"
            + " dev.dml.ray.model.BlockFactory, whose newBlock(inputs, outputs) every worker"
            + " calls (its class may be defined in a cell)").example("net")
            .noDefault("none: --model").java("setBlock").done();

    /** Distinct values above which a text feature is embedded, not one-hot encoded. */
    public static final Option<Integer> EMBED_ABOVE = spec("embed-above", ValueType.count(), "N",
            "a text feature with more than N distinct training values gets a learnt embedding"
            + " (one input, its category's index) instead of one-hot inputs; an unseen or"
            + " missing value embeds to zeros. Such a model predicts in dml but is not saved"
            + " for plain DJL or PyTorch").example("32").fixed(1000)
            .java("opt(TrainOptions.EMBED_ABOVE, ...)").done();

    /** Passes over the training rows. */
    public static final Option<Integer> EPOCHS = spec("epochs", ValueType.count(), "N",
            "passes over the training rows").example("3").fixed(1).java("optEpochs").done();

    /** Rows per worker (per replica) and step. */
    public static final Option<Integer> BATCH_SIZE = spec("batch-size", ValueType.count(), "B",
            "rows per worker per step").example("128")
            .derived("64; on a small table, a worker's rows / 16 (at least 4), so an epoch has"
                    + " about 16 steps", v -> 64).java("optBatchSize").done();

    /** A seeded, new row order every epoch. */
    public static final Option<Boolean> SHUFFLE = spec("shuffle", ValueType.onOff(), null,
            "shuffle the rows: a seeded order, new each epoch (--no-shuffle keeps the table's"
                    + " order)").example("true").fixed(true).java("optShuffle").done();

    /** A cap on the steps of each epoch, as Keras's steps_per_epoch. */
    public static final Option<Integer> STEPS_PER_EPOCH = spec("steps-per-epoch",
            ValueType.count(), "N", "end each epoch after at most N steps (each epoch then"
            + " trains on the first N batches of its own row order)").example("200")
            .noDefault("every training row once").java("opt(TrainOptions.STEPS_PER_EPOCH, ...)")
            .done();

    /** Shards with the same class mix. */
    public static final Option<Boolean> STRATIFY = spec("stratify", ValueType.onOff(), null,
            "give every worker the same mix of classes").example("true").fixed(false)
            .java("optStratify").done();

    /** The optimizer. */
    public static final Option<OptimizerKind> OPTIMIZER = choice("optimizer",
            OptimizerKind.class, "the optimizer (sgd with momentum 0.9)")
            .example("sgd").fixed(OptimizerKind.ADAM).java("optOptimizer").done();

    /** The learning rate. */
    public static final Option<Double> LR = spec("lr", ValueType.positive(), "RATE",
            "the learning rate").example("0.001")
            .derived("0.001 for adam, 0.05 for sgd",
                    v -> v.get(OPTIMIZER) == OptimizerKind.SGD ? 0.05 : 0.001)
            .java("optLearningRate").done();

    /** How the learning rate changes over the job. */
    public static final Option<String> LR_SCHEDULE = spec("lr-schedule", ValueType.lrSchedule(),
            "constant|step:EVERY:GAMMA|cosine", "how the learning rate changes: constant;"
            + " multiplied by GAMMA every EVERY epochs; or decayed along a half cosine to 0 at"
            + " the job's last step (after any --warmup)").example("step:10:0.5")
            .fixed("constant").java("optLrSchedule").done();

    /** Steps of linear warm-up. */
    public static final Option<Integer> WARMUP = spec("warmup", ValueType.countOrNone(), "STEPS",
            "raise the learning rate linearly from lr/STEPS to --lr over the first STEPS steps"
            + " of the job, then follow --lr-schedule").example("100").fixed(0)
            .java("optWarmup").done();

    /** Weight decay. */
    public static final Option<Double> WEIGHT_DECAY = spec("weight-decay", ValueType.nonNegative(),
            "W", "decay the weights (not biases or other 1-d parameters) by W: decoupled from"
            + " the gradient for adam (AdamW), added to it as W x weight for sgd (L2)")
            .example("0.01").fixed(0.0).java("optWeightDecay").done();

    /** A cap on the gradients' global norm. */
    public static final Option<Double> CLIP_NORM = spec("clip-norm", ValueType.positive(), "C",
            "scale the averaged gradients down to a global L2 norm of C when it is larger"
            + " (data parallelism; every worker clips the same all-reduced gradients, or with"
            + " --compress topk its own, to C / sqrt(workers), before its momentum)")
            .example("1.0").noDefault("none").java("optClipNorm").done();

    /** Epochs without a better validation loss before the job stops. */
    public static final Option<Integer> EARLY_STOP = spec("early-stop", ValueType.count(),
            "PATIENCE", "stop when the validation loss has not improved for PATIENCE epochs,"
            + " and keep the parameters of the epoch with the best validation loss (needs"
            + " --validation)").example("3").noDefault("none").java("optEarlyStop").done();

    /** How the work is split. */
    public static final Option<StrategyKind> STRATEGY = choice("strategy",
            StrategyKind.class, "how the model and the data are split over the workers")
            .example("pipeline").fixed(StrategyKind.DATA).java("optStrategy").done();

    /** Stages of a staged job: a count, or layers per stage. */
    public static final Option<List<Integer>> STAGES = spec("stages", ValueType.sizes(),
            "K|2,1,...", "stages (model, pipeline, hybrid): a count, or layers per stage")
            .example("3").fixed(List.of(2)).java("the stages of optStrategy").done();

    /** How an automatic split balances the stages. */
    public static final Option<StageBalance> BALANCE = choice("balance", StageBalance.class,
            "split stages by parameter count or by measured time").example("time")
            .fixed(StageBalance.PARAMETERS).java("the balance of optStrategy").done();

    /** Micro-batches per step of a pipeline. */
    public static final Option<Integer> MICROBATCHES = spec("microbatches", ValueType.count(), "M",
            "micro-batches per step (pipeline, hybrid)").example("8")
            .derived("4; 1 for --strategy model",
                    v -> v.get(STRATEGY) == StrategyKind.MODEL ? 1 : 4)
            .java("the micro-batches of optStrategy").done();

    /** Data-parallel replicas of a pipeline. */
    public static final Option<Integer> REPLICAS = spec("replicas", ValueType.count(), "D",
            "data-parallel replicas of the pipeline (hybrid)").example("2")
            .derived("2 for hybrid, else 1", v -> v.get(STRATEGY) == StrategyKind.HYBRID ? 2 : 1)
            .java("the replicas of optStrategy").done();

    /** The pipeline schedule. */
    public static final Option<PipelineSchedule> SCHEDULE = choice("schedule",
            PipelineSchedule.class,
            "the pipeline schedule: all forwards first, or one forward one backward")
            .example("1f1b")
            .derived("gpipe; 1f1b for hybrid", v -> v.get(STRATEGY) == StrategyKind.HYBRID
                    ? PipelineSchedule.ONE_F_ONE_B : PipelineSchedule.GPIPE)
            .java("the schedule of optStrategy").done();

    /**
     * Worker actors, or an elastic range. The data stays in MAX shards at any size (a worker
     * may train several), so the global batch and the learning rate never change.
     */
    public static final Option<WorkerRange> WORKERS = spec("workers", ValueType.workerRange(),
            "N|MIN:MAX", "worker actors, each its own JVM; MIN:MAX grows and shrinks with the"
            + " cluster (data parallelism), every step still training MAX batches at the same"
            + " learning rate")
            .example("2")
            .derived("1; replicas x stages for model, pipeline, hybrid", TrainOptions::workers)
            .java("optWorkers").done();

    /** CPUs each worker reserves. */
    public static final Option<Double> CPUS_PER_WORKER = spec("cpus-per-worker",
            ValueType.nonNegative(), "C", "CPUs each worker reserves (0 lets workers share)")
            .example("2").fixed(1.0).java("optCpusPerWorker").done();

    /** GPUs each worker reserves. */
    public static final Option<Double> GPUS_PER_WORKER = spec("gpus-per-worker",
            ValueType.nonNegative(), "G", "GPUs each worker reserves").example("1").fixed(0.0)
            .java("optGpusPerWorker").done();

    /** The number type of the layers' products. */
    public static final Option<Precision> PRECISION = choice("precision", Precision.class,
            "run the linear and convolution layers' products in half floats, with a dynamic"
            + " loss scale, as"
            + " PyTorch's autocast and GradScaler do (fp16, on GPUs); parameters, gradients and"
            + " the optimizer stay float32. bf16 is refused: DJL 0.35.1's PyTorch engine has no"
            + " bfloat16 tensors").example("fp16").fixed(Precision.FP32).java("optPrecision")
            .done();

    /** How the workers are placed on the cluster's nodes. */
    public static final Option<Placement> PLACEMENT = choice("placement", Placement.class,
            "put the workers on as few nodes as hold them, or on as many nodes as there are")
            .example("spread").fixed(Placement.PACK).java("opt(TrainOptions.PLACEMENT, ...)")
            .done();

    /** Rows held out, or a table to validate on. */
    public static final Option<String> VALIDATION = kernel("validation",
            ValueType.fractionOrName(), "0.2|TABLE",
            "hold out a fraction of the rows, or validate on a table variable").example("0.2")
            .noDefault("none").java("optValidationFraction").done();

    /** Where checkpoints go. */
    public static final Option<String> CHECKPOINT_DIR = spec("checkpoint-dir", ValueType.text(),
            "DIR", "write checkpoints into this folder").example("checkpoints")
            .noDefault("none: no checkpoints").java("optCheckpoints").done();

    /** Steps between checkpoints. */
    public static final Option<Integer> CHECKPOINT_EVERY = spec("checkpoint-every",
            ValueType.count(), "STEPS", "steps between checkpoints").example("50").fixed(100)
            .java("optCheckpointEvery").done();

    /** Who writes the checkpoints. */
    public static final Option<CheckpointWriter> CHECKPOINT_STORE = choice("checkpoint-store",
            CheckpointWriter.class, "who writes checkpoints: the driver, on its machine, or the"
            + " workers, into a folder every node mounts").example("shared")
            .fixed(CheckpointWriter.DRIVER).java("opt(TrainOptions.CHECKPOINT_STORE, ...)").done();

    /** What a failed checkpoint write does. */
    public static final Option<CheckpointFailure> CHECKPOINT_FAILURE = choice(
            "checkpoint-failure", CheckpointFailure.class, "when a checkpoint cannot be written:"
            + " say so and train on, or stop the job").example("stop")
            .fixed(CheckpointFailure.WARN).java("opt(TrainOptions.CHECKPOINT_FAILURE, ...)")
            .done();

    /** Continue from the newest checkpoint. */
    public static final Option<Boolean> RESUME = spec("resume", ValueType.onOff(), null,
            "continue from the newest checkpoint in --checkpoint-dir").example("true")
            .fixed(false).java("optResume").done();

    /** Batches a data-parallel worker adds up before each optimizer step. */
    public static final Option<Integer> ACCUMULATE = spec("accumulate", ValueType.count(), "K",
            "batches each worker adds up before each optimizer step (data parallelism): an"
            + " update sees K x batch-size rows per worker, in the memory of one batch")
            .example("4").fixed(1).java("opt(TrainOptions.ACCUMULATE, ...)").done();

    /** How gradients are compressed on the wire. */
    public static final Option<String> COMPRESS = spec("compress", ValueType.compression(),
            "none|fp16|bf16|int8|topk:RATIO[:WARMUP]|powersgd:RANK", "compress the gradients"
            + " the workers exchange (data parallelism): half floats, 8-bit integers, the"
            + " largest RATIO of the optimizer's local velocities (Deep Gradient Compression;"
            + " the share sent falls from 25 % to RATIO over the first WARMUP epochs), or each"
            + " weight matrix as a rank-RANK product (PowerSGD); what a lossy scheme drops is"
            + " added to the next step (error feedback)")
            .example("topk:0.01").fixed("none").java("optCompress").done();

    /** How the workers' collectives move data. */
    public static final Option<TransportKind> TRANSPORT = choice("transport",
            TransportKind.class, "how the workers exchange gradients and parameters: direct TCP"
            + " connections between them (a link that cannot connect goes through Ray, and the"
            + " cell says so), or Ray's object store for every link").example("ray")
            .fixed(TransportKind.TCP).java("opt(TrainOptions.TRANSPORT, ...)").done();

    /** The gradient buckets all-reduced during the backward pass. */
    public static final Option<Double> BUCKET_MB = spec("bucket-mb", ValueType.nonNegative(),
            "MB", "all-reduce the gradients in buckets of about MB megabytes of layers, each as"
            + " soon as the backward pass has finished its layers, while it goes on with the"
            + " earlier ones (data parallelism, --transport tcp, no --compress); 0 waits for the"
            + " whole backward pass").example("0").fixed(1.0)
            .java("opt(TrainOptions.BUCKET_MB, ...)").done();

    /** ZeRO-1: each data-parallel worker keeps and updates 1/N of the optimizer state. */
    public static final Option<Boolean> SHARD_OPTIMIZER = spec("shard-optimizer",
            ValueType.onOff(), null, "shard the optimizer over the workers, as ZeRO-1 (data"
            + " parallelism, 2 or more workers): the gradients are reduce-scattered, each"
            + " worker updates its 1/N of the parameters and keeps the optimizer state (Adam's"
            + " moments, SGD's velocity) of that 1/N only, and an all-gather returns the"
            + " parameters; the result equals the unsharded job's, with 1/N of its optimizer"
            + " memory per worker").example("true").fixed(false)
            .java("optShardOptimizer").done();

    /** Synchronous all-reduce, or asynchronous updates through parameter servers. */
    public static final Option<String> SYNC = spec("sync", ValueType.syncMode(),
            "sync|async|ssp:S", "how data-parallel workers agree on the parameters: an"
            + " all-reduce every step (sync); or each worker pushes its update to parameter"
            + " servers and pulls their parameters without waiting for the others (async), at"
            + " most S steps ahead of the slowest (ssp:S)").example("ssp:2").fixed("sync")
            .java("optSync").done();

    /** Parameter-server actors of an asynchronous job. */
    public static final Option<Integer> PS = spec("ps", ValueType.count(), "N",
            "parameter-server actors of --sync async or ssp:S, each holding whole parameter"
            + " tensors, balanced by size").example("2")
            .derived("1 with --sync async or ssp:S", v -> "sync".equals(v.get(SYNC)) ? null : 1)
            .java("optParameterServers").done();

    /** Dollars the job may spend. */
    public static final Option<Double> BUDGET = spec("budget", ValueType.positive(), "USD",
            "checkpoint and stop before the job's cost would pass this many dollars (nodes"
            + " priced by their labels or %dml cluster price)").example("2.50")
            .noDefault("none").java("opt(TrainOptions.BUDGET, ...)").done();

    /** Time the job may take. */
    public static final Option<Double> DEADLINE = spec("deadline", ValueType.duration(),
            "TIME", "checkpoint and stop before the job's run time would pass this (90s, 30m,"
            + " 2h)").example("30m").noDefault("none").java("opt(TrainOptions.DEADLINE, ...)")
            .done();

    /** Worker losses a job recovers from. */
    public static final Option<Integer> MAX_FAILURES = spec("max-failures",
            ValueType.countOrNone(), "N", "lost workers or nodes the job recovers from before"
            + " it fails (a pre-emption notice never counts); 3 covers the odd lost spot node"
            + " while a fault that repeats fails soon").example("0").fixed(3)
            .java("optMaxFailures").done();

    /** The seed of the initial weights and of the validation split. */
    public static final Option<Long> SEED = spec("seed", ValueType.integer(), "S",
            "seed of the initial weights, the validation split and the row order")
            .example("7").fixed(42L).java("optSeed").done();

    /** Record the job in the run store. */
    public static final Option<Boolean> RECORD = spec("record", ValueType.onOff(), null,
            "record the job's settings, data, metrics, cost and model in the run store"
            + " ($DML_RUNS_DIR, else ~/.local/share/dml/runs; see %dml runs); --no-record keeps"
            + " no record").example("true").fixed(true).java("opt(TrainOptions.RECORD, ...)")
            .done();

    /** A cluster address. */
    public static final Option<String> CLUSTER = kernel("cluster", ValueType.text(), "HOST:PORT",
            "a Ray cluster's address").example("10.0.0.5:6379")
            .noDefault("this session's cluster (an embedded head on this machine)")
            .java("optClusterAddress").done();

    /** A configuration of the session's last {@code %dml plan}. */
    public static final Option<String> PLAN = kernel("plan", ValueType.text(), "BEST|ROW",
            "run the job of the session's last %dml plan with the configuration it picked"
            + " (BEST) or the one in a row of its table").example("BEST")
            .noDefault("none").done();

    /** The notebook variable the result is bound to. */
    public static final Option<String> INTO = kernel("into", ValueType.variableName(), "NAME",
            "bind the result to this variable").example("model").noDefault("none").done();

    /** Return once the job runs. */
    public static final Option<Boolean> BACKGROUND = kernel("background", ValueType.onOff(),
            null, "return once the job runs (see %dml status, %dml stop)").example("true")
            .fixed(false).done();

    /** Hand the job to a driver that outlives the kernel. */
    public static final Option<Boolean> DETACH = kernel("detach", ValueType.onOff(), null,
            "hand the job to a driver that keeps running after the kernel shuts down, on an"
            + " external cluster (see %dml attach, %dml stop)").example("true").fixed(false)
            .java("DetachedRuns.start(spec, cluster)").done();

    /** No live plots. */
    public static final Option<Boolean> NO_PLOTS = kernel("no-plots", ValueType.onOff(), null,
            "do not draw live plots").example("true").fixed(false).done();

    /** Stack traces with errors. */
    public static final Option<Boolean> DEBUG = kernel("debug", ValueType.onOff(), null,
            "show stack traces with errors").example("true").fixed(false).done();

    /** Every option, in the order help lists them. */
    public static final List<Option<?>> ALL = List.of(LABEL, FEATURES, READ_ON_WORKERS,
            S3_ENDPOINT, DATA_CACHE_MB, MODEL, HIDDEN, IMAGE, BLOCK, EMBED_ABOVE, EPOCHS,
            BATCH_SIZE, STEPS_PER_EPOCH, ACCUMULATE, COMPRESS, TRANSPORT, BUCKET_MB,
            SHARD_OPTIMIZER, SYNC, PS, SHUFFLE, STRATIFY, OPTIMIZER, LR, LR_SCHEDULE, WARMUP,
            WEIGHT_DECAY, CLIP_NORM, EARLY_STOP, WORKERS, CPUS_PER_WORKER, GPUS_PER_WORKER,
            PRECISION, PLACEMENT, STRATEGY, STAGES, BALANCE, MICROBATCHES, REPLICAS, SCHEDULE,
            VALIDATION, CHECKPOINT_DIR, CHECKPOINT_EVERY, CHECKPOINT_STORE, CHECKPOINT_FAILURE,
            RESUME, BUDGET, DEADLINE, MAX_FAILURES, SEED, RECORD, CLUSTER, PLAN, INTO, BACKGROUND,
            DETACH, NO_PLOTS, DEBUG);

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

    private static WorkerRange workers(OptionValues v) {
        return WorkerRange.of(v.get(STRATEGY) == StrategyKind.DATA ? 1
                : v.get(REPLICAS) * stageCount(v));
    }

    static <T> Declaration<T> spec(String name, ValueType<T> type, String metavar,
            String help) {
        return new Declaration<>(name, type, metavar, help, Target.SPEC);
    }

    /** A choice option of the spec, its placeholder the enum's words: {@code pack|spread}. */
    static <E extends Enum<E> & Choice> Declaration<E> choice(String name, Class<E> type,
            String help) {
        return spec(name, ValueType.choice(type), Choice.metavar(type), help);
    }

    static <T> Declaration<T> kernel(String name, ValueType<T> type, String metavar,
            String help) {
        return new Declaration<>(name, type, metavar, help, Target.KERNEL);
    }
}
