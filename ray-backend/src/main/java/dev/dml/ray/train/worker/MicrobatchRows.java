package dev.dml.ray.train.worker;

import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ShardArrays;

/**
 * The rows a staged worker reads for a micro-batch, numbered over the job: its epoch's reading
 * order applies. The order is computed once per epoch and keyed by the replica, so the stages
 * that read one shard, the first for features and the last for labels, read its rows in the
 * same order.
 */
final class MicrobatchRows {

    private int[] order;
    private int orderEpoch = -1;

    /**
     * Opens the rows of {@code microbatch} of {@code replica}'s shard.
     *
     * @return the rows; close them after the pass
     */
    ShardArrays.Rows open(WorkerConfig config, ShardArrays shard, int replica, int microbatch) {
        int perEpoch = config.stepsPerEpoch * config.microbatches;
        int b = config.options().get(TrainOptions.BATCH_SIZE) / config.microbatches;
        int from = microbatch % perEpoch * b;
        int epoch = microbatch / perEpoch;
        if (order == null || orderEpoch != epoch || order.length != shard.rows()) {
            order = config.readOrder(epoch, replica, shard.rows());
            orderEpoch = epoch;
        }
        return shard.openRows(order, from, from + b);
    }
}
