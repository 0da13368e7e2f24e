package dev.dml.options;

import static dev.dml.options.Declaration.kernel;
import static dev.dml.options.Declaration.spec;

import java.util.List;

/**
 * The data a job reads: the table or files, the columns, the validation rows. Declared here by
 * concern; {@link TrainOptions} gathers every group, so each option is {@code TrainOptions.NAME}
 * wherever it is used.
 */
interface DataOptions {

    /** The column to predict. */
    Option<String> LABEL = kernel("label", ValueType.text(), "COLUMN",
            "the column to predict (required)").example("is_fraud")
            .noDefault("none: required").java("ColumnSelection.setLabel").done();

    /** The feature columns. */
    Option<List<String>> FEATURES = kernel("features", ValueType.names(),
            "A,B,...", "the feature columns").example("amount,v1")
            .noDefault("every numeric column but the label").java("ColumnSelection.addFeatures")
            .done();

    /** Workers read the data files themselves; the kernel never holds the table. */
    Option<Boolean> READ_ON_WORKERS = kernel("read-on-workers",
            ValueType.onOff(), null, "the data is a Parquet or Arrow IPC file, a folder of them,"
            + " a file:// URL that every node reaches, or an s3:// object or prefix: each"
            + " worker reads only its own row groups (record batches), through its node's"
            + " cache, and the kernel never holds the table").example("true").fixed(false)
            .java("TrainSpecBuilder.setFiles")
            .done();

    /** The endpoint of an S3-compatible store, for s3:// data. */
    Option<String> S3_ENDPOINT = kernel("s3-endpoint", ValueType.text(),
            "URL", "with s3:// data, the URL of an S3-compatible store (MinIO, Ceph, Cloudflare"
            + " R2, GCS's XML API), addressed path-style; credentials still come from the AWS"
            + " default chain").example("http://127.0.0.1:9000")
            .noDefault("AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, else AWS itself")
            .java("TrainSpecBuilder.optS3Endpoint").done();

    /** The size of each node's cache of worker-read data. */
    Option<Integer> DATA_CACHE_MB = spec("data-cache-mb",
            ValueType.countOrNone(), "MB", "with --read-on-workers, keep up to MB megabytes of"
            + " decoded row groups on each node's local disk ($DML_DATA_CACHE, else"
            + " dml-data-cache-<user> in the temp folder, owner-only), least recently used out"
            + " first, so restarted workers and later jobs read no file again; 0 caches"
            + " nothing").example("4096").fixed(2048)
            .java("opt(TrainOptions.DATA_CACHE_MB, ...)").done();

    /** Rows held out, or a table to validate on. */
    Option<String> VALIDATION = kernel("validation",
            ValueType.fractionOrName(), "0.2|TABLE",
            "hold out a fraction of the rows, or validate on a table variable").example("0.2")
            .noDefault("none").java("optValidationFraction").done();
}
