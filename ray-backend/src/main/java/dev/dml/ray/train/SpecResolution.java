package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.TableValidator;
import dev.dml.ray.model.ModelSpec;
import java.util.Arrays;
import java.util.Random;
import tech.tablesaw.api.Table;

/**
 * What {@link TrainSpecBuilder#build()} works out from the table: the validated classes, the
 * seeded validation split, the steps per epoch, and the model sized to the data.
 */
final class SpecResolution {

    private SpecResolution() {}

    /** Validates the table and resolves everything that depends on it. */
    static TrainSpec resolve(TrainSpecBuilder b) {
        int classes = TableValidator.validate(b.table, b.columns);
        Table train = b.table;
        Table validation = b.validationTable;
        if (validation != null) {
            if (b.validationFraction > 0) {
                throw new DmlException("Both a validation table and a validation fraction are"
                        + " set.", "Keep one: optValidationTable or optValidationFraction.");
            }
            TableValidator.validate(validation, b.columns);
        } else if (b.validationFraction > 0) {
            int rows = b.table.rowCount();
            int held = (int) Math.max(1, Math.round(rows * b.validationFraction));
            if (held >= rows) {
                throw new DmlException("A validation fraction of " + b.validationFraction
                        + " leaves no training rows of " + rows + ".",
                        "Pass a smaller fraction to optValidationFraction.");
            }
            int[] perm = permutation(rows, b.seed);
            int[] val = Arrays.copyOf(perm, held);
            int[] tr = Arrays.copyOfRange(perm, held, rows);
            Arrays.sort(val);
            Arrays.sort(tr);
            validation = b.table.rows(val);
            train = b.table.rows(tr);
        }
        boolean staged = b.strategy instanceof Strategy.Staged;
        int shards = staged ? ((Strategy.Staged) b.strategy).replicas() : b.workers;
        int smallest = train.rowCount() / shards;
        int steps = smallest / b.batchSize;
        if (steps < 1) {
            throw new DmlException("Each of the " + shards + (staged ? " replicas" : " workers")
                    + " gets " + smallest + " training rows, fewer than the batch size "
                    + b.batchSize + ".", "Lower optBatchSize or " + (staged ? "the replicas"
                    : "optWorkers") + ", or train on more rows.");
        }
        ModelSpec resolved = resolveModel(b, train, classes);
        if (b.strategy instanceof Strategy.Staged) {
            checkStaged(b, (Strategy.Staged) b.strategy, resolved);
        }
        return new TrainSpec(b, train, validation, resolved, steps);
    }

    /** The number of worker actors: {@code replicas * stages} for a staged strategy. */
    static int actors(TrainSpecBuilder b) {
        if (b.strategy instanceof Strategy.Staged) {
            Strategy.Staged s = (Strategy.Staged) b.strategy;
            return s.replicas() * s.stages();
        }
        return b.workers;
    }

    /** Rejects what a staged strategy cannot do with this model, batch and options. */
    private static void checkStaged(TrainSpecBuilder b, Strategy.Staged s, ModelSpec model) {
        int actors = actors(b);
        if (b.workersSet && b.workers != actors) {
            throw new DmlException("optWorkers(" + b.workers + ") conflicts with the strategy "
                    + s + ", which runs replicas x stages = " + actors + " workers.",
                    "Leave optWorkers out, or set it to " + actors + ".");
        }
        int layers = model.layerCount();
        if (s.stages() > layers) {
            throw new DmlException("The model has " + layers + " layers, too few for "
                    + s.stages() + " stages.", "Use at most " + layers + " stages, or a model"
                    + " with more layers (more hidden sizes).");
        }
        int[] split = s.layersPerStage().orElse(null);
        if (split != null && Arrays.stream(split).sum() != layers) {
            throw new DmlException("The split " + Arrays.toString(split) + " names "
                    + Arrays.stream(split).sum() + " layers; the model has " + layers + ".",
                    "Give layer counts that add up to " + layers + ".");
        }
        int m = s.microbatches();
        if (b.batchSize % m != 0) {
            int lower = Math.max(m, b.batchSize / m * m);
            throw new DmlException("The batch of " + b.batchSize + " rows does not divide into "
                    + m + " micro-batches.", "Set optBatchSize to a multiple of " + m
                    + ", such as " + lower + " or " + (lower + m) + ", or change the"
                    + " micro-batches.");
        }
        if (b.validationFraction > 0 || b.checkpointDir != null) {
            throw new DmlException("Validation splits and checkpoints are not supported with"
                    + " the " + s.kind() + " strategy yet.", "Leave out optValidationFraction"
                    + " and optCheckpoints, and score held-out rows with result.predict(...).");
        }
    }

    private static ModelSpec resolveModel(TrainSpecBuilder spec, Table train, int classes) {
        ColumnSelection columns = spec.columns;
        int features = columns.featureCount();
        boolean isClasses = columns.labelKind() == LabelKind.CLASSES;
        ModelSpec given = spec.modelSpec;
        if (given != null) {
            if (given.inputs() != features) {
                throw new DmlException("The model takes " + given.inputs()
                        + " inputs, but " + features + " feature columns are selected.",
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
        ModelSpec.Builder b = ModelSpec.builder(spec.family).optSeed(spec.seed);
        if (spec.family != ModelSpec.Family.CNN) {
            b.setInputs(features).optStandardize(FeatureStats.of(train, columns));
        } else if (features != 28 * 28) {
            throw new DmlException("A CNN family model takes 28x28 images (784 features), got "
                    + features + " feature columns.",
                    "Pass a ModelSpec built with optImage(c, h, w) to setModel.");
        }
        b.setOutputs(isClasses ? Math.max(2, classes) : 1);
        for (int h : spec.hidden) {
            b.addHidden(h);
        }
        return b.build();
    }

    /** A seeded shuffle of 0..n-1 (Fisher-Yates), so the validation split is reproducible. */
    private static int[] permutation(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        Random rnd = new Random(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}
