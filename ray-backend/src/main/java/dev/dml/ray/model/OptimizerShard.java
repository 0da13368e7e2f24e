package dev.dml.ray.model;

import dev.dml.DmlException;

/**
 * One data-parallel rank's share of a sharded optimizer (ZeRO-1, {@code --shard-optimizer}):
 * the rank updates only its range of the flat parameters, from the reduced gradients a
 * reduce-scatter left it there, and holds optimizer state (Adam's moments, SGD's velocity) for
 * that range alone; an all-gather then returns every range to every rank. Under ZeRO-2
 * ({@code --shard-gradients}) the rank owns one range in each gradient bucket, and its reduced
 * gradients come packed, the ranges end to end, in an array of their size only. Installed on a
 * {@link ModelStage}, it replaces the stage's whole optimizer, whose state is freed; the
 * stage's {@link ModelStage#saveState} and {@link ModelStage#loadState} then become
 * collectives that every rank calls together (see {@link ShardedOptimizer}).
 */
public final class OptimizerShard {

    /** What the shard needs of its peers: two collectives that every rank calls together. */
    public interface Peers {

        /**
         * Sums one number over every rank.
         *
         * @param x this rank's part
         * @return the sum, the same on every rank
         */
        double sumOverRanks(double x);

        /**
         * Fills {@code buf} with every rank's own ranges of it.
         *
         * @param buf this rank's whole flat array, its own ranges set
         */
        void allGather(float[] buf);
    }

    private final ModelStage stage;
    private final ShardedOptimizer optimizer;

    private OptimizerShard(ModelStage stage, ShardedOptimizer optimizer) {
        this.stage = stage;
        this.optimizer = optimizer;
    }

    /**
     * Shards a stage's optimizer: from now on it keeps state for {@code [from, to)} only,
     * starting from zero state; restore a saved state afterwards to go on from it.
     *
     * @param stage a whole model on the CPU in float32
     * @param from the first flat parameter of this rank's range
     * @param to one past its last
     * @param peers the rank's collectives
     * @return the shard
     */
    public static OptimizerShard install(ModelStage stage, int from, int to, Peers peers) {
        return install(stage, new int[] {from, to}, peers);
    }

    /**
     * Shards a stage's optimizer over several ranges of its flat parameters (one per gradient
     * bucket, ZeRO-2), with fresh state.
     *
     * @param stage a whole model on the CPU in float32
     * @param ranges pairs {@code from, to}, ascending and apart
     * @param peers the rank's collectives
     * @return the shard
     */
    public static OptimizerShard install(ModelStage stage, int[] ranges, Peers peers) {
        ParameterBuffers params = stage.buffers();
        if (params.staged() || stage.lossScale() != null) {
            throw new DmlException("A sharded optimizer runs on the CPU in float32, but this"
                    + " model trains on " + (params.staged() ? "a GPU." : "loss-scaled fp16."),
                    "Leave --shard-optimizer out for this job.");
        }
        for (int j = 0; j < ranges.length; j += 2) {
            int low = j == 0 ? 0 : ranges[j - 1];
            if (ranges[j] < low || ranges[j + 1] > params.total() || ranges[j] > ranges[j + 1]) {
                throw new IllegalArgumentException("range [" + ranges[j] + ", " + ranges[j + 1]
                        + ") is not in a model of " + params.total() + " parameters after "
                        + low);
            }
        }
        ShardedOptimizer o = new ShardedOptimizer(stage.optimizerSpec(), params.total(), ranges,
                peers);
        stage.training().replaceOptimizer(o);
        return new OptimizerShard(stage, o);
    }

    /**
     * Whether this shard still drives its stage and covers {@code [from, to)}.
     *
     * @param from the range's first parameter
     * @param to one past its last
     * @return false when the rank's range moved (its group changed) or another optimizer
     *     replaced this one
     */
    public boolean covers(int from, int to) {
        return covers(new int[] {from, to});
    }

    /**
     * Whether this shard still drives its stage and covers exactly these ranges.
     *
     * @param ranges pairs {@code from, to}
     * @return false when the rank's ranges moved or another optimizer replaced this one
     */
    public boolean covers(int[] ranges) {
        return stage.training().optimizer() == optimizer && optimizer.covers(ranges);
    }

    /**
     * Returns the elements this rank updates.
     *
     * @return the length of its ranges together
     */
    public int owned() {
        return optimizer.owned();
    }

    /**
     * Applies one update to this rank's range and ends the step.
     *
     * @param buf the flat array whose range holds the reduced gradients; on return it holds the
     *     updated parameters there, ready for the all-gather
     */
    public void step(float[] buf) {
        optimizer.step(stage.buffers(), buf, false);
        stage.microBatches().close();
    }

    /**
     * Applies one update from packed gradients (ZeRO-2) and ends the step.
     *
     * @param owned {@link #owned()} floats: the reduced gradients of the ranges end to end; on
     *     return it holds their updated parameters, ready for the all-gathers
     */
    public void stepPacked(float[] owned) {
        optimizer.step(stage.buffers(), owned, true);
        stage.microBatches().close();
    }

    /**
     * The bytes of optimizer state a stage holds, sharded or not.
     *
     * @param stage the stage
     * @return 4 bytes per float of its optimizer's state arrays
     */
    public static long stateBytes(ModelStage stage) {
        return stage.training().optimizer().stateBytes();
    }
}
