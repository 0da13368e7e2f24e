package dev.dml.ray.train;

import dev.dml.options.Precision;
import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.FeatureVocabulary;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.FileScan;
import dev.dml.ray.data.LabelClasses;
import dev.dml.ray.data.LabelInference;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.data.TableValidator;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.model.Embeddings;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelSpecBuilder;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.settings.FileInput;
import dev.dml.ray.train.settings.ImageResolution;
import dev.dml.ray.train.settings.ModelEmbeddings;
import dev.dml.ray.train.settings.OptionRules.Facts;
import dev.dml.ray.train.settings.OptionRules.Point;
import dev.dml.ray.train.settings.OptionRules;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.settings.StrategyOptions;
import dev.dml.ray.train.settings.UserModels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * What {@link TrainSpecBuilder#build()} works out from the options and the table: the
 * validated classes, the seeded validation split, the steps per epoch, the strategy, the
 * optimizer and the model sized to the data. Messages name options as templates, so they read
 * in the words of the surface the user typed them on.
 */
public final class SpecResolution {

    /** The default batch leaves an epoch about this many steps on a small table. */
    private static final int STEPS_PER_EPOCH = 16;
    /** The smallest default batch. */
    private static final int MIN_BATCH = 4;

    private SpecResolution() {}

    /** Validates the table and resolves everything that depends on it. */
    /**
     * Opens the builder's files, once its S3 endpoint is known, and names what is missing.
     */
    static void requireData(TrainSpecBuilder b) {
        if (b.files == null && b.filesLocation != null) {
            b.files = DataFiles.open(b.filesLocation, b.s3Endpoint);
        }
        if (b.s3Endpoint != null && (b.files == null || !DataStore.isS3(b.files.location()))) {
            throw new DmlException("{s3-endpoint} is set, but the spec reads no s3:// files.",
                    "Leave it out, or train on s3:// files with setFiles.");
        }
        List<String> missing = new ArrayList<>();
        if (b.table == null && b.files == null) {
            missing.add("setTable");
        }
        if (b.table != null && b.files != null) {
            throw new DmlException("The spec has both a table and files to read on the"
                    + " workers.", "Keep one: setTable or setFiles.");
        }
        if (b.columns == null && b.label == null) {
            missing.add("setColumns");
        }
        if (!missing.isEmpty()) {
            throw new DmlException("The training spec is missing "
                    + String.join(", ", missing) + ".",
                    "Call " + String.join("(...), ", missing)
                            + "(...) on TrainSpec.builder() before build().");
        }
    }

    static TrainSpec resolve(TrainSpecBuilder b) {
        OptionValues v = b.options;
        OptionRules.check(Point.START, Facts.of(v));
        Strategy strategy = StrategyOptions.resolve(b.strategy, v);
        ColumnSelection columns = b.columns != null ? b.columns : LabelInference.select(
                b.table != null ? b.table : b.files.read(0, null), b.label, b.features,
                v.get(TrainOptions.MODEL));
        boolean staged = strategy instanceof Strategy.Staged;
        int shards = staged ? ((Strategy.Staged) strategy).replicas()
                : v.get(TrainOptions.WORKERS).max();
        Table train = b.table;
        Table validation = b.validationTable;
        int classes;
        int smallest;
        java.util.function.Supplier<FeatureStats> stats;
        FileInput fileInput = null;
        if (b.files != null) {
            FileScan scan = FileScan.of(b.files, columns);
            columns = scan.columns();
            classes = scan.classes();
            OptionRules.check(Point.FILES, Facts.of(v).withFamily(declaredFamily(b))
                    .withValidation(b.validationFraction, false));
            fileInput = FileInput.deal(b.files, shards, v.get(TrainOptions.SHUFFLE),
                    v.get(TrainOptions.SEED), v.get(TrainOptions.DATA_CACHE_MB));
            smallest = (int) Math.min(Integer.MAX_VALUE, fileInput.smallestShard());
            stats = scan::stats;
            if (validation != null) {
                TableValidator.validate(validation, columns);
            }
        } else {
            if (columns.labelKind() == LabelKind.CLASSES && columns.classNames().isEmpty()
                    && LabelClasses.holdsNames(b.table, columns.label())) {
                // class names are learnt on the table the user trains on, validation rows held
                // out
                columns = columns.withClassNames(LabelClasses.learn(b.table, columns.label()));
            }
            classes = TableValidator.validate(b.table, columns);
            if (v.get(TrainOptions.STRATIFY) && columns.labelKind() != LabelKind.CLASSES) {
                throw new DmlException("{stratify} balances classes, but the label '"
                        + columns.label() + "' holds regression targets.",
                        "Drop {stratify}; {shuffle} already mixes the rows.");
            }
            OptionRules.check(Point.TABLE, Facts.of(v));
            if (validation != null) {
                if (b.validationFraction > 0) {
                    throw new DmlException("Both a validation table and a validation fraction"
                            + " are set.", "Keep one: optValidationTable or"
                            + " optValidationFraction.");
                }
                TableValidator.validate(validation, columns);
            } else if (b.validationFraction > 0) {
                Table[] split = holdOut(b.table, b.validationFraction, v.get(TrainOptions.SEED));
                train = split[0];
                validation = split[1];
            }
            if (columns.vocabulary().isEmpty()) {
                // categories are learnt on the training rows: validation rows may hold unseen
                // ones; an mf model embeds its id columns whatever they hold
                boolean mf = declaredFamily(b) == ModelSpec.Family.MF;
                columns = columns.withVocabulary(FeatureVocabulary.learn(train, columns,
                        FeatureVocabulary.DEFAULT_MAX_CATEGORIES, v.get(TrainOptions.EMBED_ABOVE),
                        mf ? columns.features() : List.of()));
            }
            smallest = train.rowCount() / shards;
            Table rows = train;
            ColumnSelection cols = columns;
            stats = () -> FeatureStats.of(rows, cols);
        }
        int batch = v.get(TrainOptions.BATCH_SIZE);
        List<String> notices = new ArrayList<>();
        int m = staged ? ((Strategy.Staged) strategy).microbatches() : 1;
        if (!v.isSet(TrainOptions.BATCH_SIZE) && smallest >= MIN_BATCH
                && smallest / STEPS_PER_EPOCH < batch) {
            // the default on a small table: enough steps per epoch to learn (the option's help)
            batch = Math.max(m, Math.max(MIN_BATCH, smallest / STEPS_PER_EPOCH) / m * m);
            v = v.with(TrainOptions.BATCH_SIZE, batch);
        }
        if (smallest < batch) {
            // A small table trains with the batch it has (a multiple of the micro-batches).
            int smaller = smallest / m * m;
            String who = "Each of the " + shards + (staged ? " replicas" : " workers") + " gets "
                    + smallest + " training rows, fewer than the batch size " + batch;
            if (smaller < 1) {
                throw new DmlException(who + ".", "Lower " + (staged ? "{replicas}"
                        : "{workers}") + ", or train on more rows.");
            }
            notices.add(who + ": it trains with batches of " + smaller + " rows. Set {batch-size}"
                    + " to " + smaller + " or less to keep this message away.");
            v = v.with(TrainOptions.BATCH_SIZE, smaller);
            batch = smaller;
        }
        int k = v.get(TrainOptions.ACCUMULATE);
        int steps = smallest / (batch * k);
        if (steps < 1) {
            throw new DmlException("Each of the " + shards + (staged ? " replicas" : " workers")
                    + " gets " + smallest + " training rows, fewer than {batch-size} x"
                    + " {accumulate} = " + batch * k + ".", "Lower {batch-size} or {accumulate},"
                    + " or train on more rows.");
        }
        if (v.isSet(TrainOptions.STEPS_PER_EPOCH)) {
            steps = Math.min(steps, v.get(TrainOptions.STEPS_PER_EPOCH));
        }
        ModelSpec model = resolveModel(b, columns, train, stats, classes);
        int workers = v.get(TrainOptions.WORKERS).max();
        if (strategy instanceof Strategy.Staged s) {
            workers = s.replicas() * s.stages();
        }
        Facts facts = Facts.of(v).withStrategy(strategy, workers);
        OptionRules.check(Point.STRATEGY, facts);
        if (strategy instanceof Strategy.Staged s) {
            checkStaged(v, s, model);
        }
        OptionRules.check(Point.JOB, facts);
        if (v.get(TrainOptions.PRECISION) != Precision.FP32) {
            dev.dml.ray.model.Precision.of(v.get(TrainOptions.PRECISION)).requireEngineSupport();
            OptionRules.check(Point.PRECISION, facts.withFamily(model.family()));
        }
        OptimizerSpec optimizer = UpdateResolution.optimizer(b, v, steps, notices);
        OptionRules.check(Point.UPDATE, facts.withValidation(b.validationFraction,
                validation != null).withClipNorm(optimizer.clipNorm()));
        return new TrainSpec(b, v, columns, strategy, optimizer, workers, train, validation,
                model, steps, notices, fileInput);
    }

    /** The family of the model set whole, else the one {@code --model} names. */
    private static ModelSpec.Family declaredFamily(TrainSpecBuilder b) {
        return b.modelSpec != null ? b.modelSpec.family()
                : ModelSpec.Family.of(b.options.get(TrainOptions.MODEL));
    }

    /** A seeded hold-out of {@code fraction} of the rows: {training, validation}. */
    private static Table[] holdOut(Table table, double fraction, long seed) {
        int rows = table.rowCount();
        int held = (int) Math.max(1, Math.round(rows * fraction));
        if (held >= rows) {
            throw new DmlException("A validation fraction of " + fraction
                    + " leaves no training rows of " + rows + ".",
                    "Use a smaller {validation}.");
        }
        int[] perm = RowOrder.permutation(rows, seed);
        int[] val = Arrays.copyOf(perm, held);
        int[] tr = Arrays.copyOfRange(perm, held, rows);
        Arrays.sort(val);
        Arrays.sort(tr);
        return new Table[] {table.rows(tr), table.rows(val)};
    }

    /**
     * Rejects what a staged strategy cannot do with this model and batch (its option rules
     * ran before, in {@link OptionRules}).
     */
    private static void checkStaged(OptionValues v, Strategy.Staged s, ModelSpec model) {
        int layers = model.layerCount();
        if (s.stages() > layers) {
            throw new DmlException("The model has " + layers + " layers, too few for "
                    + s.stages() + " stages.", "Use at most " + layers + " {stages}, or a model"
                    + " with more layers (more {hidden} sizes).");
        }
        int[] split = s.layersPerStage().orElse(null);
        if (split != null && Arrays.stream(split).sum() != layers) {
            throw new DmlException("The split " + Arrays.toString(split) + " names "
                    + Arrays.stream(split).sum() + " layers; the model has " + layers + ".",
                    "Give layer counts that add up to " + layers + ".");
        }
        int m = s.microbatches();
        int batch = v.get(TrainOptions.BATCH_SIZE);
        if (batch % m != 0) {
            int lower = Math.max(m, batch / m * m);
            throw new DmlException("The batch of " + batch + " rows does not divide into "
                    + m + " micro-batches.", "Set {batch-size} to a multiple of " + m
                    + ", such as " + lower + " or " + (lower + m) + ", or change {microbatches}.");
        }
    }

    private static ModelSpec resolveModel(TrainSpecBuilder spec, ColumnSelection columns,
            Table train, java.util.function.Supplier<FeatureStats> stats, int classes) {
        int features = columns.inputCount();
        boolean isClasses = columns.labelKind() == LabelKind.CLASSES;
        ModelSpec given = spec.modelSpec;
        Embeddings embeddings = ModelEmbeddings.of(columns);
        if (given != null) {
            ModelEmbeddings.requireSame(given, embeddings, columns);
            if (given.inputs() != features) {
                throw new DmlException("The model takes " + given.inputs()
                        + " inputs, but the selected feature columns make " + features
                        + " inputs.",
                        "Build the ModelSpec with setInputs(" + features
                                + "), or select matching columns.");
            }
            if (isClasses && given.outputs() > 1 && given.outputs() < classes) {
                throw new DmlException("The model has " + given.outputs()
                        + " outputs, but the label has " + classes + " classes.",
                        "Build the ModelSpec with setOutputs(" + classes + ").");
            }
            return given;
        }
        OptionValues v = spec.options;
        ModelSpec.Family family = ModelSpec.Family.of(v.get(TrainOptions.MODEL));
        List<Integer> hidden = v.get(TrainOptions.HIDDEN);
        OptionRules.check(Point.MODEL, Facts.of(v)
                .withFamily(spec.block != null ? ModelSpec.Family.CUSTOM : family));
        if (spec.block != null) {
            return UserModels.of(spec.block, v, columns, stats, classes, embeddings);
        }
        if (family == ModelSpec.Family.MF) {
            return ModelEmbeddings.matrixFactorization(v, columns, train, classes);
        }
        ModelSpecBuilder b = ModelSpec.builder(family).optSeed(v.get(TrainOptions.SEED))
                .optEmbeddings(embeddings);
        if (family != ModelSpec.Family.CNN) {
            b.setInputs(features).optStandardize(stats.get());
        } else {
            ImageResolution.apply(v, features, b);
        }
        b.setOutputs(isClasses ? Math.max(2, classes) : 1);
        if (hidden != null) {
            hidden.forEach(b::addHidden);
        }
        return b.build();
    }

    /** A builder with another's settings, so a spec can be varied ({@link TrainSpec#toBuilder}). */
    static TrainSpecBuilder copy(TrainSpecBuilder b) {
        TrainSpecBuilder c = new TrainSpecBuilder();
        c.table = b.table;
        c.files = b.files;
        c.columns = b.columns;
        c.label = b.label;
        c.features = b.features;
        c.options = b.options;
        c.modelSpec = b.modelSpec;
        c.block = b.block;
        c.optimizer = b.optimizer;
        c.strategy = b.strategy;
        c.clusterAddress = b.clusterAddress;
        c.validationFraction = b.validationFraction;
        c.validationTable = b.validationTable;
        c.reportEvery = b.reportEvery;
        c.listeners.addAll(b.listeners);
        c.workerJvmOptions.addAll(b.workerJvmOptions);
        c.name = b.name;
        return c;
    }

    /** The job cut short to measure it: one epoch of at most {@code steps} steps. */
    static TrainSpec probe(TrainSpec spec, int workers, int steps) {
        TrainSpecBuilder b = spec.toBuilder();
        OptionValues v = b.options;
        for (Option<?> o : List.of(TrainOptions.CHECKPOINT_DIR, TrainOptions.CHECKPOINT_EVERY,
                TrainOptions.CHECKPOINT_STORE, TrainOptions.CHECKPOINT_FAILURE,
                TrainOptions.RESUME, TrainOptions.BUDGET, TrainOptions.DEADLINE,
                TrainOptions.EARLY_STOP)) {
            v = v.without(o);
        }
        b.options = v.with(TrainOptions.WORKERS, WorkerRange.of(workers))
                .with(TrainOptions.EPOCHS, 1).with(TrainOptions.STEPS_PER_EPOCH, steps)
                .with(TrainOptions.RECORD, false); // a measurement, not a run to compare
        b.name = spec.name() + "-probe-" + workers;
        return b.build();
    }
}
