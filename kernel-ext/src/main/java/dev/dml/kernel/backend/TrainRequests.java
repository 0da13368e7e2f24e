package dev.dml.kernel.backend;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.magics.TrainRequest;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.nio.file.Path;

/**
 * Turns a {@code %dml train} request into the engine's {@link TrainSpec}: the notebook resolves
 * what only it can (the table and block variables), and every other option passes to the spec
 * as it is, so its default and its checks stay in its one declaration. The engine opens the
 * files of {@code --read-on-workers} and tells the label's kind from the data.
 */
final class TrainRequests {

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
        String endpoint = r.get(TrainOptions.S3_ENDPOINT);
        if (endpoint != null && !DataStore.isS3(r.source())) {
            throw new DmlException("{s3-endpoint} is set, but the data "
                    + DmlException.literal(r.source()) + " is no s3:// URL.",
                    "Leave {s3-endpoint} out, or give the data as s3://BUCKET/KEY.");
        }
        if (r.get(TrainOptions.READ_ON_WORKERS)) {
            // the engine opens the files at build; the workers read their rows
            b.setFiles(r.source());
            if (endpoint != null) {
                b.optS3Endpoint(endpoint);
            }
        } else {
            b.setTable(data.table(r.source(), NotebookData.DATA, endpoint));
        }
        b.setColumns(r.get(TrainOptions.LABEL), r.get(TrainOptions.FEATURES))
                .optName(jobName(r.source()));
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

    private static String jobName(String source) {
        String name = Path.of(source).getFileName().toString().replaceAll("\\.[^.]*$", "")
                .replaceAll("[^A-Za-z0-9_-]", "");
        return name.isEmpty() ? "train" : name;
    }
}
