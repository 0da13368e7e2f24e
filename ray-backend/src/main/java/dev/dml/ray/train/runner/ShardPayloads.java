package dev.dml.ray.train.runner;

import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.RowOrder;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.TrainSpec;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * What a job sends its workers as their shards, made in the kernel: a table's rows dealt and
 * encoded as Arrow IPC, or, for worker-read files, a reference to each shard's units ({@link
 * dev.dml.ray.data.FileShard}).
 */
final class ShardPayloads {

    private ShardPayloads() {}

    static List<byte[]> of(TrainSpec spec) {
        if (spec.fileInput() != null) { // references: each worker reads its own units
            return spec.fileInput().encode(spec.columns());
        }
        int shards = spec.strategy() instanceof Strategy.Staged s ? s.replicas() : spec.workers();
        Table train = spec.trainTable();
        RowOrder.Split split = RowOrder.split(train.rowCount(), shards,
                spec.get(TrainOptions.SHUFFLE), spec.get(TrainOptions.STRATIFY)
                        ? RowOrder.classes(train, spec.columns()) : null, spec.seed());
        return ArrowShards.split(train, spec.columns(), split);
    }
}
