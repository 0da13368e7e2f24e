package dev.dml.kernel;

import dev.dml.magics.TrainRequest;
import dev.dml.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.TrainingListener;
import java.nio.file.Path;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/** Turns a {@code %dml train} request into the engine's {@link TrainSpec}. */
final class TrainRequests {

    /** Without --hidden, an MLP gets one hidden layer of this size. */
    private static final int DEFAULT_HIDDEN = 64;
    /** SGD's momentum, as in the engine's benchmarks. */
    private static final float SGD_MOMENTUM = 0.9f;
    /** Without --lr: Adam's and SGD's usual starting points. */
    private static final float ADAM_LR = 1e-3f;
    private static final float SGD_LR = 0.05f;
    /** More distinct integer values than this in a numeric label means regression. */
    private static final int MAX_CLASSES = 1000;

    private TrainRequests() {}

    /**
     * Builds the spec; validates the table against the columns before anything starts.
     *
     * @param r the request
     * @param data where tables come from
     * @param listener the listener that feeds the live plot
     * @return the spec
     */
    static TrainSpec spec(TrainRequest r, NotebookData data, TrainingListener listener) {
        Table table = data.table(r.source(), "the data");
        ColumnSelection columns = columns(table, r);
        TrainSpecBuilder b = TrainSpec.builder().setTable(table).setColumns(columns)
                .setEpochs(r.epochs() == null ? 1 : r.epochs())
                .optName(jobName(r.source())).addListener(listener);
        model(b, r);
        optimizer(b, r);
        if (r.batchSize() != null) {
            b.optBatchSize(r.batchSize());
        }
        if (r.workers() != null) {
            b.optWorkers(r.workers());
        }
        if (r.cpusPerWorker() != null) {
            b.optCpusPerWorker(r.cpusPerWorker());
        }
        if (r.gpusPerWorker() != null) {
            b.optGpusPerWorker(r.gpusPerWorker());
        }
        if (r.seed() != null) {
            b.optSeed(r.seed());
        }
        validation(b, r, data);
        if (r.checkpointDir() != null) {
            b.optCheckpoints(Path.of(r.checkpointDir()),
                    r.checkpointEvery() == null ? 100 : r.checkpointEvery());
        } else if (r.checkpointEvery() != null || r.resume()) {
            throw new DmlException("--checkpoint-every and --resume need --checkpoint-dir.",
                    "Add --checkpoint-dir DIR (a folder for the checkpoints).");
        }
        b.optResume(r.resume());
        Strategies.apply(b, r);
        return b.build();
    }

    private static ColumnSelection columns(Table table, TrainRequest r) {
        LabelKind kind = labelKind(table, r.label());
        if (r.features() == null) {
            return ColumnSelection.allNumericExcept(table, r.label(), kind);
        }
        return ColumnSelection.builder().setLabel(r.label(), kind).addFeatures(r.features())
                .build();
    }

    /** Whole numbers (or booleans) are classes; anything else is a regression target. */
    static LabelKind labelKind(Table table, String label) {
        if (!table.containsColumn(label)) {
            return LabelKind.CLASSES; // the table validator names the missing column
        }
        Column<?> c = table.column(label);
        if (c instanceof BooleanColumn || !(c instanceof NumericColumn<?> numeric)) {
            return LabelKind.CLASSES;
        }
        for (int i = 0; i < numeric.size(); i++) {
            double v = numeric.getDouble(i);
            if (!Double.isNaN(v) && (v != Math.rint(v) || v < 0 || v >= MAX_CLASSES)) {
                return LabelKind.REGRESSION;
            }
        }
        return LabelKind.CLASSES;
    }

    private static void model(TrainSpecBuilder b, TrainRequest r) {
        String family = r.model() == null ? "mlp" : r.model();
        if (r.hidden() != null && !family.equals("mlp") && !family.equals("cnn")) {
            throw new DmlException("--hidden sets the hidden layers of an mlp or cnn, not of a "
                    + family + " model.", "Drop --hidden, or use --model mlp.");
        }
        int[] hidden = r.hidden() == null ? new int[0]
                : r.hidden().stream().mapToInt(Integer::intValue).toArray();
        switch (family) {
            case "logistic" -> b.setModel(ModelSpec.Family.LOGISTIC_REGRESSION);
            case "cnn" -> b.setModel(ModelSpec.Family.CNN, hidden);
            default -> b.setModel(ModelSpec.Family.MLP,
                    hidden.length == 0 ? new int[] {DEFAULT_HIDDEN} : hidden);
        }
    }

    private static void optimizer(TrainSpecBuilder b, TrainRequest r) {
        boolean sgd = "sgd".equals(r.optimizer());
        float lr = r.learningRate() == null ? (sgd ? SGD_LR : ADAM_LR)
                : r.learningRate().floatValue();
        if (!(lr > 0)) {
            throw new DmlException("--lr must be above 0, got " + r.learningRate() + ".",
                    "Try --lr 0.001 for adam or --lr 0.05 for sgd.");
        }
        b.optOptimizer(sgd ? OptimizerSpec.sgd(lr, SGD_MOMENTUM) : OptimizerSpec.adam(lr));
    }

    private static void validation(TrainSpecBuilder b, TrainRequest r, NotebookData data) {
        String v = r.validation();
        if (v == null) {
            return;
        }
        try {
            double fraction = Double.parseDouble(v);
            if (!(fraction > 0 && fraction < 1)) {
                throw new DmlException("--validation must be a fraction between 0 and 1, or a"
                        + " table variable; got " + v + ".", "Example: --validation 0.2");
            }
            b.optValidationFraction(fraction);
        } catch (NumberFormatException notANumber) {
            b.optValidationTable(data.table(v, "--validation"));
        }
    }

    private static String jobName(String source) {
        String name = Path.of(source).getFileName().toString().replaceAll("\\.[^.]*$", "")
                .replaceAll("[^A-Za-z0-9_-]", "");
        return name.isEmpty() ? "train" : name;
    }
}
