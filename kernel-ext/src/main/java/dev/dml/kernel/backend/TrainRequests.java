package dev.dml.kernel.backend;

import dev.dml.options.ModelFamily;
import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.magics.TrainRequest;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.nio.file.Path;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Turns a {@code %dml train} request into the engine's {@link TrainSpec}: the notebook resolves
 * what only it can (the table variables, the columns), and every other option passes to the
 * spec as it is, so its default and its checks stay in its one declaration.
 */
final class TrainRequests {

    /** More distinct integer values than this in a numeric label means regression. */
    private static final int MAX_CLASSES = 1000;

    private TrainRequests() {}

    /**
     * Builds the spec; validates the table against the columns before anything starts.
     *
     * @param r the request
     * @param data where tables come from
     * @return the spec
     */
    static TrainSpec spec(TrainRequest r, NotebookData data) {
        TrainSpecBuilder b = TrainSpec.builder();
        Table table;
        String endpoint = r.get(TrainOptions.S3_ENDPOINT);
        if (endpoint != null && !DataStore.isS3(r.source())) {
            throw new DmlException("{s3-endpoint} is set, but the data "
                    + DmlException.literal(r.source()) + " is no s3:// URL.",
                    "Leave {s3-endpoint} out, or give the data as s3://BUCKET/KEY.");
        }
        if (r.get(TrainOptions.READ_ON_WORKERS)) {
            // the kernel reads one row group, for the column types; the workers read the rest
            DataFiles files = DataFiles.open(r.source(), endpoint);
            table = files.read(0, null);
            b.setFiles(files);
        } else {
            table = data.table(r.source(), NotebookData.DATA, endpoint);
            b.setTable(table);
        }
        b.setColumns(columns(table, r)).optName(jobName(r.source()));
        OptionValues given = r.options();
        for (Option<?> o : given.given()) {
            if (o.target() == Option.Target.SPEC) {
                copy(b, given, o);
            }
        }
        String validation = r.get(TrainOptions.VALIDATION);
        if (validation != null) {
            if (validation.matches("[A-Za-z_$][\\w$]*")) {
                b.optValidationTable(data.table(validation, "--validation"));
            } else {
                b.optValidationFraction(Double.parseDouble(validation));
            }
        }
        String block = r.get(TrainOptions.BLOCK);
        if (block != null) {
            b.setBlock(data.block(block));
        }
        if (r.cluster() != null) {
            b.optClusterAddress(r.cluster());
        }
        return b.build();
    }

    private static <T> void copy(TrainSpecBuilder b, OptionValues given, Option<T> o) {
        b.opt(o, given.get(o));
    }

    private static ColumnSelection columns(Table table, TrainRequest r) {
        String label = r.get(TrainOptions.LABEL);
        LabelKind kind = labelKind(table, label);
        if (r.get(TrainOptions.MODEL) == ModelFamily.MF && kind == LabelKind.CLASSES
                && table.containsColumn(label)
                && table.column(label) instanceof NumericColumn<?> stars
                && stars.countUnique() > 2) {
            kind = LabelKind.REGRESSION; // mf scores whole-number ratings (1-5 stars) as ratings
        }
        if (r.get(TrainOptions.FEATURES) == null) {
            return ColumnSelection.allExcept(table, label, kind);
        }
        return ColumnSelection.builder().setLabel(label, kind)
                .addFeatures(r.get(TrainOptions.FEATURES)).build();
    }

    /**
     * Whole numbers (or booleans) are classes; anything else is a regression target. With
     * {@code --read-on-workers} this looks at the first row group only.
     */
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

    private static String jobName(String source) {
        String name = Path.of(source).getFileName().toString().replaceAll("\\.[^.]*$", "")
                .replaceAll("[^A-Za-z0-9_-]", "");
        return name.isEmpty() ? "train" : name;
    }
}
