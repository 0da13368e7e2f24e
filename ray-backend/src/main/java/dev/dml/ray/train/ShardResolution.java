package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;

/**
 * Refuses {@code --shard-optimizer} where it cannot work, one line each. ZeRO-1 splits the
 * optimizer of data-parallel replicas over their synchronous ring: it needs peers to split it
 * over, the ring's plain reduce-scatter (a compressed or bucketed all-reduce does not leave each
 * rank a range of exact sums), and the host optimizer of CPU workers (a GPU's optimizer runs
 * as tensor operations over whole parameters).
 */
final class ShardResolution {

    private ShardResolution() {}

    /**
     * Checks the options.
     *
     * @param v the options
     * @param strategy the resolved strategy
     * @param workers the job's workers (the most, when elastic)
     */
    static void check(OptionValues v, Strategy strategy, int workers) {
        if (!v.get(TrainOptions.SHARD_OPTIMIZER)) {
            return;
        }
        String why = null;
        String fix = null;
        if (strategy instanceof Strategy.Staged s) {
            why = "the strategy " + DmlException.literal(s) + " already splits the model over"
                    + " stages";
            fix = "use {strategy=data}";
        } else if (workers == 1) {
            why = "one worker has no peer to split it with";
            fix = "raise {workers} to 2 or more";
        } else if (!v.get(TrainOptions.SYNC).isSync()) {
            why = "{sync=" + v.get(TrainOptions.SYNC) + "} updates through parameter servers,"
                    + " which hold the optimizer themselves";
            fix = "leave {sync} out";
        } else if (!v.get(TrainOptions.COMPRESS).isNone()) {
            why = "{compress} sends the gradients compressed, not as the exact sums each"
                    + " worker's range needs";
            fix = "leave {compress} out";
        } else if (v.isSet(TrainOptions.BUCKET_MB) && v.get(TrainOptions.BUCKET_MB) > 0) {
            why = "{bucket-mb} all-reduces whole buckets during the backward, while the sharded"
                    + " optimizer reduce-scatters the gradients after it";
            fix = "leave {bucket-mb} out";
        } else if (v.get(TrainOptions.GPUS_PER_WORKER) > 0) {
            why = "GPU workers run the optimizer on their device over whole parameters";
            fix = "leave {gpus-per-worker} out";
        }
        if (why != null) {
            throw new DmlException("{shard-optimizer} splits the optimizer of data-parallel"
                    + " workers, but " + why + ".", "Leave {shard-optimizer} out, or " + fix
                    + ".");
        }
    }
}
