package dev.dml.ray.train.settings;

import dev.dml.options.Option;
import dev.dml.options.Precision;
import dev.dml.options.StrategyKind;
import dev.dml.options.TransportKind;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.data.FeatureVocabulary;
import dev.dml.ray.train.settings.OptionRules.Facts;
import dev.dml.ray.train.settings.OptionRules.Point;
import dev.dml.ray.train.settings.OptionRules.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The table of {@link OptionRules}: every rule that refuses one option because of another, in
 * the order resolution checks them (the first broken rule of a point is the one reported).
 */
public final class OptionRuleTable {

    private static final String DATA = "use {strategy=data}";
    private static final String TWO_WORKERS = "raise {workers} to 2 or more";
    private static final String NO_COMPRESS = "leave {compress} out";
    private static final String NO_BUCKETS = "leave {bucket-mb} out";

    /** Every rule, in the order resolution checks them. */
    static final List<Rule> RULES = List.copyOf(rules());

    private OptionRuleTable() {}

    private static List<Rule> rules() {
        List<Rule> r = new ArrayList<>();
        r.add(new Rule("checkpoints", Point.START, "checkpoint-every", "checkpoint-dir",
                f -> f.options().get(TrainOptions.CHECKPOINT_DIR) == null
                        && !checkpointOptions(f).isEmpty(),
                f -> {
                    List<String> set = checkpointOptions(f);
                    return (set.size() == 1 ? set.get(0) + " needs" : String.join(", ",
                            set.subList(0, set.size() - 1)) + " and " + set.get(set.size() - 1)
                            + " need") + " {checkpoint-dir}.";
                },
                f -> "Add {checkpoint-dir}: the folder for the checkpoints."));
        shaping(r);
        files(r);
        r.add(new Rule("data-cache-table", Point.TABLE, "data-cache-mb", "read-on-workers",
                f -> f.options().isSet(TrainOptions.DATA_CACHE_MB),
                f -> "{data-cache-mb} sizes the cache of files the workers read, but this job"
                        + " trains on a table in the kernel.",
                f -> "Leave {data-cache-mb} out, or train with {read-on-workers}."));
        model(r);
        staged(r);
        buckets(r);
        sync(r);
        shard(r);
        precision(r);
        update(r);
        return r;
    }

    /** The checkpoint options set, as templates, {@code {resume}} last. */
    private static List<String> checkpointOptions(Facts f) {
        List<String> set = new ArrayList<>();
        for (var o : List.of(TrainOptions.CHECKPOINT_EVERY, TrainOptions.CHECKPOINT_STORE,
                TrainOptions.CHECKPOINT_FAILURE)) {
            if (f.options().isSet(o)) {
                set.add("{" + o.name() + "}");
            }
        }
        if (f.options().get(TrainOptions.RESUME)) {
            set.add("{resume}");
        }
        return set;
    }

    /** The strategy's options set where the strategy they shape cannot use them. */
    private static void shaping(List<Rule> r) {
        for (Option<?> o : StrategyOptions.SHAPING) {
            r.add(new Rule(o.name() + "-given", Point.SHAPE, o.name(), "strategy",
                    f -> f.given() != null && f.options().isSet(o),
                    f -> "{" + o.name() + "} conflicts with the strategy set whole ("
                            + f.given() + ").",
                    f -> "Set it on the Strategy, or drop it."));
        }
        r.add(new Rule("staged-options-data", Point.SHAPE, "stages", "strategy",
                f -> shape(f) == StrategyKind.DATA
                        && StrategyOptions.STAGED.stream().anyMatch(f.options()::isSet),
                f -> "{stages}, {microbatches}, {replicas}, {schedule} and {balance} apply to a"
                        + " model, pipeline or hybrid strategy.",
                f -> "Add {strategy=pipeline} (or model, hybrid), or drop those options."));
        r.add(new Rule("microbatches-model", Point.SHAPE, "microbatches", "strategy",
                f -> shape(f) == StrategyKind.MODEL
                        && (f.options().isSet(TrainOptions.MICROBATCHES)
                        || f.options().isSet(TrainOptions.SCHEDULE)),
                f -> "{microbatches} and {schedule} apply to pipeline and hybrid jobs, not to the"
                        + " model strategy.",
                f -> "Use {strategy=pipeline}, or drop them."));
        r.add(new Rule("replicas-hybrid", Point.SHAPE, "replicas", "strategy",
                f -> shape(f) != null && shape(f) != StrategyKind.HYBRID
                        && f.options().isSet(TrainOptions.REPLICAS),
                f -> "{replicas} applies to the hybrid strategy.",
                f -> "Use {strategy=hybrid} with {replicas} and {stages}, or drop {replicas}."));
    }

    /** The kind {@code --strategy} names, or null when a strategy is set whole. */
    private static StrategyKind shape(Facts f) {
        return f.given() != null ? null : f.options().get(TrainOptions.STRATEGY);
    }

    /** What files read on the workers cannot do (yet). */
    private static void files(List<Rule> r) {
        r.add(new Rule("validation-files", Point.FILES, "validation", "read-on-workers",
                f -> f.validationFraction() > 0,
                f -> "{validation} holds out a fraction of a table's rows in the kernel; with"
                        + " {read-on-workers} the kernel never holds the rows.",
                f -> "Validate on a table variable ({validation=TABLE}), or hold out your own"
                        + " file of rows."));
        r.add(new Rule("stratify-files", Point.FILES, "stratify", "read-on-workers",
                f -> f.options().get(TrainOptions.STRATIFY),
                f -> "{stratify} deals rows by class; with {read-on-workers} workers read whole"
                        + " row groups.",
                f -> "Leave {stratify} out; {shuffle} deals the row groups in a seeded order."));
        r.add(new Rule("mf-files", Point.FILES, "model", "read-on-workers",
                f -> f.family() == ModelSpec.Family.MF,
                f -> "{model=mf} learns its ids and mean rating from a table in the kernel; with"
                        + " {read-on-workers} the kernel never holds the rows.",
                f -> "Read the ratings into a table variable and train on it."));
        r.add(new Rule("embed-above-files", Point.FILES, "embed-above", "read-on-workers",
                f -> f.options().isSet(TrainOptions.EMBED_ABOVE),
                f -> "{embed-above} is set, but with {read-on-workers} the scan of the files"
                        + " embeds text columns above the default "
                        + FeatureVocabulary.DEFAULT_EMBED_ABOVE + " values.",
                f -> "Leave {embed-above} out, or train on a table variable."));
    }

    /** Options of one model family set on another. */
    private static void model(List<Rule> r) {
        r.add(new Rule("hidden-logistic", Point.MODEL, "hidden", "model",
                f -> ModelSpec.Family.of(f.options().get(TrainOptions.MODEL))
                        == ModelSpec.Family.LOGISTIC_REGRESSION
                        && f.options().get(TrainOptions.HIDDEN) != null,
                f -> "{hidden} sets the hidden layers of an mlp or a cnn, not of a logistic"
                        + " model.",
                f -> "Drop {hidden}, or train the mlp family."));
        r.add(new Rule("image-cnn", Point.MODEL, "image", "model",
                f -> f.options().isSet(TrainOptions.IMAGE) && f.family() != ModelSpec.Family.CNN,
                f -> "{image} shapes the images of a cnn; this job trains "
                        + (f.family() == ModelSpec.Family.CUSTOM ? "its own {block}"
                                : "the " + f.family().optionName() + " family") + ".",
                f -> "Add {model=cnn}, or leave {image} out."));
    }

    /** What a staged strategy cannot do, and compression with nothing to exchange. */
    private static void staged(List<Rule> r) {
        r.add(new Rule("accumulate-staged", Point.STRATEGY, "accumulate", "strategy",
                f -> f.staged() != null && f.options().get(TrainOptions.ACCUMULATE) > 1,
                f -> "{accumulate} adds up whole batches of data parallelism; the strategy "
                        + f.strategyText() + " cuts each batch into {microbatches}.",
                f -> "Leave {accumulate} out, or raise {microbatches} and {batch-size}."));
        r.add(new Rule("compress-staged", Point.STRATEGY, "compress", "strategy",
                f -> f.staged() != null && !f.options().get(TrainOptions.COMPRESS).isNone(),
                f -> "{compress} compresses the gradients of data parallelism; the strategy "
                        + f.strategyText() + " does not all-reduce them that way yet.",
                f -> "Leave {compress} out, or use {strategy=data}."));
        r.add(new Rule("elastic-staged", Point.STRATEGY, "workers", "strategy",
                f -> f.staged() != null && f.options().isSet(TrainOptions.WORKERS)
                        && f.options().get(TrainOptions.WORKERS).elastic(),
                f -> "{workers=" + f.options().get(TrainOptions.WORKERS) + "} is elastic, which"
                        + " only data parallelism can be: the strategy " + f.strategyText()
                        + " runs a fixed replicas x stages = " + actors(f) + " workers.",
                f -> "Leave {workers} out, or use {strategy=data}."));
        r.add(new Rule("workers-staged", Point.STRATEGY, "workers", "strategy",
                f -> f.staged() != null && f.options().isSet(TrainOptions.WORKERS)
                        && f.options().get(TrainOptions.WORKERS).max() != actors(f),
                f -> "{workers=" + f.options().get(TrainOptions.WORKERS) + "} conflicts with"
                        + " the strategy " + f.strategyText() + ", which runs replicas x stages"
                        + " = " + actors(f) + " workers.",
                f -> "Leave {workers} out, or set it to " + actors(f) + "."));
        r.add(new Rule("compress-one-worker", Point.STRATEGY, "compress", "workers",
                f -> f.staged() == null && f.workers() == 1
                        && !f.options().get(TrainOptions.COMPRESS).isNone(),
                f -> "{compress=" + f.options().get(TrainOptions.COMPRESS) + "} compresses the"
                        + " gradients workers exchange, but one worker exchanges none.",
                f -> "Raise {workers} to 2 or more, or leave {compress} out."));
    }

    private static int actors(Facts f) {
        return f.staged().replicas() * f.staged().stages();
    }

    /** {@code --bucket-mb} where no all-reduce runs during the backward. */
    private static void buckets(List<Rule> r) {
        Family x = new Family(r, Point.JOB, "bucket-mb", OptionRuleTable::bucketing,
                f -> "{bucket-mb} overlaps the all-reduce with the backward pass, but ",
                f -> "Leave {bucket-mb} out, or ");
        x.staged("all-reduces each stage's gradients after its micro-batches");
        x.oneWorker("one worker all-reduces nothing");
        x.compressing("compressed gradients are all-reduced after the whole backward (their"
                + " error feedback spans every gradient)");
        x.add("bucket-mb-transport", "transport",
                f -> f.options().get(TrainOptions.TRANSPORT) == TransportKind.RAY,
                f -> "over {transport=ray} the all-reduce runs after the whole backward",
                f -> "leave {transport} out");
    }

    /**
     * {@code --ps} without parameter servers, and parameter servers where they cannot work: they
     * serve the whole-model replicas of data parallelism, each worker pushing its own update
     * after every batch, so they do not mix with staged strategies, an all-reduce's compression
     * or overlap, added-up batches, or a worker count that changes.
     */
    private static void sync(List<Rule> r) {
        r.add(new Rule("ps-sync", Point.JOB, "ps", "sync",
                f -> f.options().get(TrainOptions.SYNC).isSync()
                        && f.options().isSet(TrainOptions.PS),
                f -> "{ps} starts parameter servers for an asynchronous job, but this one"
                        + " all-reduces every step ({sync=sync}).",
                f -> "Add {sync=async} (or ssp:S), or leave {ps} out."));
        Family x = new Family(r, Point.JOB, "sync",
                f -> !f.options().get(TrainOptions.SYNC).isSync(),
                f -> "{sync=" + f.options().get(TrainOptions.SYNC) + "} trains through"
                        + " parameter servers, but ",
                f -> "Leave {sync} out, or ");
        x.staged("passes each batch through stages in step");
        x.oneWorker("one worker has no peer to run ahead of");
        x.add("sync-elastic", "workers", f -> f.options().get(TrainOptions.WORKERS).elastic(),
                f -> "{workers=" + f.options().get(TrainOptions.WORKERS) + "} changes the"
                        + " workers while the servers count on each of them",
                f -> "give {workers} one number");
        x.compressing("{compress} compresses the all-reduce, which an asynchronous job does not"
                + " run");
        x.bucketing("{bucket-mb} overlaps the all-reduce, which an asynchronous job does not"
                + " run");
        x.add("sync-accumulate", "accumulate", f -> f.options().get(TrainOptions.ACCUMULATE) > 1,
                f -> "each worker pushes its update after every batch, so {accumulate} has"
                        + " nothing to add up", f -> "leave {accumulate} out");
        x.add("sync-ps", "ps", f -> f.options().get(TrainOptions.PS) > f.workers(),
                f -> "{ps=" + f.options().get(TrainOptions.PS) + "} starts more servers than"
                        + " the " + f.workers() + " workers that feed them",
                f -> "set {ps} to at most " + f.workers());
    }

    /**
     * {@code --shard-optimizer} (ZeRO-1) splits the optimizer of data-parallel replicas over
     * their synchronous ring: it needs peers, the ring's plain reduce-scatter (a compressed
     * all-reduce does not leave each rank a range of exact sums), and the host optimizer of CPU
     * workers (a GPU's optimizer runs over whole parameters). {@code --shard-gradients} (ZeRO-2)
     * needs the same, and reduce-scatters each bucket as the backward ends it, so it takes
     * {@code --bucket-mb}, which ZeRO-1 alone refuses; its rules come first, so that a job that
     * only set it hears of it. It implies the sharded optimizer: turning that off is refused.
     */
    private static void shard(List<Rule> r) {
        Family z2 = shardFamily(r, "shard-gradients", TrainOptions.SHARD_GRADIENTS,
                "the gradients and the optimizer");
        z2.add("shard-gradients-shard-optimizer", "shard-optimizer",
                f -> f.options().isSet(TrainOptions.SHARD_OPTIMIZER)
                        && !f.options().get(TrainOptions.SHARD_OPTIMIZER),
                f -> "{shard-optimizer} is set to false, which keeps the optimizer whole,"
                        + " while sharding the gradients shards it too",
                f -> "leave {shard-optimizer} out");
        Family z1 = shardFamily(r, "shard-optimizer", TrainOptions.SHARD_OPTIMIZER,
                "the optimizer");
        z1.add("shard-optimizer-bucket-mb", "bucket-mb", f -> bucketing(f)
                        && !f.options().get(TrainOptions.SHARD_GRADIENTS),
                f -> "{bucket-mb} all-reduces whole buckets during the backward, while the"
                        + " sharded optimizer reduce-scatters the gradients after it",
                f -> NO_BUCKETS + ", or add {shard-gradients} to reduce-scatter each bucket");
    }

    /** The rules ZeRO-1 and ZeRO-2 share, for the option that turns one on. */
    private static Family shardFamily(List<Rule> r, String name, Option<Boolean> option,
            String splits) {
        Family x = new Family(r, Point.JOB, name, f -> f.options().get(option),
                f -> "{" + name + "} splits " + splits + " of data-parallel workers, but ",
                f -> "Leave {" + name + "} out, or ");
        x.staged("already splits the model over stages");
        x.oneWorker("one worker has no peer to split it with");
        x.add(name + "-sync", "sync", f -> !f.options().get(TrainOptions.SYNC).isSync(),
                f -> "{sync=" + f.options().get(TrainOptions.SYNC) + "} updates through"
                        + " parameter servers, which hold the optimizer themselves",
                f -> "leave {sync} out");
        x.compressing("{compress} sends the gradients compressed, not as the exact sums each"
                + " worker's range needs");
        x.add(name + "-gpus", "gpus-per-worker",
                f -> f.options().get(TrainOptions.GPUS_PER_WORKER) > 0,
                f -> "GPU workers run the optimizer on their device over whole parameters",
                f -> "leave {gpus-per-worker} out");
        return x;
    }

    /**
     * fp16 runs dml's own linear and convolution layers, so a model whose forward is the user's,
     * or that has none, is refused. It scales the loss and skips the steps whose gradients
     * overflow, which every holder of a gradient must agree on, so only data parallelism with
     * gradients sent as they are. And it needs GPUs: CPUs run half-float products about 20 times
     * slower than float32 (docs/gpu.md, "Precision"). bf16 is refused before these rules, by
     * the engine check.
     */
    private static void precision(List<Rule> r) {
        Predicate<Facts> half = f -> f.options().get(TrainOptions.PRECISION) != Precision.FP32;
        r.add(new Rule("precision-block", Point.PRECISION, "precision", "block",
                half.and(f -> f.family() == ModelSpec.Family.CUSTOM),
                f -> precisionFlag(f) + " runs dml's linear and convolution layers in half"
                        + " floats; a model from {block} runs its own forward.",
                f -> "Leave {precision} out."));
        r.add(new Rule("precision-mf", Point.PRECISION, "precision", "model",
                half.and(f -> f.family() == ModelSpec.Family.MF),
                f -> precisionFlag(f) + " runs dml's linear and convolution layers in half"
                        + " floats; an mf model has none.",
                f -> "Leave {precision} out."));
        Family x = new Family(r, Point.PRECISION, "precision", half,
                f -> precisionFlag(f) + " scales the loss and skips steps that overflow, but ",
                f -> "Leave {precision} out, or ");
        x.add("precision-gpus", "gpus-per-worker",
                f -> f.options().get(TrainOptions.GPUS_PER_WORKER) == 0,
                f -> "this job has no GPUs, and CPUs run half-float products about 20 times"
                        + " slower than float32", f -> "set {gpus-per-worker}");
        x.staged("splits the gradients over stages, which would each skip different steps");
        x.compressing("{compress} would send the loss-scaled gradients, up to 65536 times their"
                + " size, and keep overflows in its error feedback");
    }

    private static String precisionFlag(Facts f) {
        return "{precision=" + f.options().get(TrainOptions.PRECISION) + "}";
    }

    /** Early stopping with nothing to watch; clipping gradients no stage holds whole. */
    private static void update(List<Rule> r) {
        r.add(new Rule("early-stop-validation", Point.UPDATE, "early-stop", "validation",
                f -> f.options().isSet(TrainOptions.EARLY_STOP) && !f.validates(),
                f -> "{early-stop} watches the validation loss, but the job has no validation"
                        + " rows.",
                f -> "Add {validation}, such as {validation=0.2}."));
        r.add(new Rule("clip-norm-staged", Point.UPDATE, "clip-norm", "strategy",
                f -> f.clipNorm() > 0 && f.staged() != null,
                f -> "{clip-norm} clips the global norm of data parallelism's gradients; the"
                        + " strategy " + f.strategyText() + " splits them over stages.",
                f -> "Leave {clip-norm} out, or use {strategy=data}."));
    }

    private static boolean compressing(Facts f) {
        return !f.options().get(TrainOptions.COMPRESS).isNone();
    }

    private static boolean bucketing(Facts f) {
        return f.options().isSet(TrainOptions.BUCKET_MB)
                && f.options().get(TrainOptions.BUCKET_MB) > 0;
    }

    /**
     * Rules that share the refused option, a guard and the start of both lines: "X does Y, but
     * WHY." and "Leave X out, or FIX.", as the checks they replace wrote them.
     */
    private record Family(List<Rule> rules, Point point, String option, Predicate<Facts> guard,
            Function<Facts, String> what, Function<Facts, String> fix) {

        void add(String id, String other, Predicate<Facts> when, Function<Facts, String> why,
                Function<Facts, String> fixTail) {
            rules.add(new Rule(id, point, option, other,
                    guard.and(when), f -> what.apply(f) + why.apply(f) + ".",
                    f -> fix.apply(f) + fixTail.apply(f) + "."));
        }

        /** The rule "{@code <option>-strategy}": a staged strategy that {@code does}. */
        void staged(String does) {
            add(option + "-strategy", "strategy", f -> f.staged() != null,
                    f -> "the strategy " + f.strategyText() + " " + does, f -> DATA);
        }

        /** The rule "{@code <option>-compress}": compression, and why that cannot work. */
        void compressing(String why) {
            add(option + "-compress", "compress", OptionRuleTable::compressing, f -> why,
                    f -> NO_COMPRESS);
        }

        /** The rule "{@code <option>-bucket-mb}": buckets, and why that cannot work. */
        void bucketing(String why) {
            add(option + "-bucket-mb", "bucket-mb", OptionRuleTable::bucketing, f -> why,
                    f -> NO_BUCKETS);
        }

        /** The rule "{@code <option>-workers}": one worker, and why that cannot work. */
        void oneWorker(String why) {
            add(option + "-workers", "workers", f -> f.workers() == 1, f -> why,
                    f -> TWO_WORKERS);
        }
    }
}
