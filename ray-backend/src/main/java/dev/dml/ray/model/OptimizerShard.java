package dev.dml.ray.model;

import dev.dml.DmlException;

/**
 * One data-parallel rank's share of a sharded optimizer (ZeRO-1, {@code --shard-optimizer}):
 * the rank updates only its range of the flat parameters, from the reduced gradients a
 * reduce-scatter left it there, and holds optimizer state (Adam's moments, SGD's velocity) for
 * that range alone; an all-gather then returns every range to every rank. Installed on a
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
         * Fills {@code buf} with every rank's own range of it.
         *
         * @param buf this rank's array, its own range set
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
        ParameterBuffers params = stage.buffers();
        if (params.staged() || stage.lossScale() != null) {
            throw new DmlException("A sharded optimizer runs on the CPU in float32, but this"
                    + " model trains on " + (params.staged() ? "a GPU." : "loss-scaled fp16."),
                    "Leave --shard-optimizer out for this job.");
        }
        if (from < 0 || to > params.total() || from > to) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") is not in a"
                    + " model of " + params.total() + " parameters");
        }
        ShardedOptimizer o = new ShardedOptimizer(stage.optimizerSpec(), params.total(), from,
                to, peers);
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
        return stage.training().optimizer() == optimizer && optimizer.covers(from, to);
    }

    /**
     * Applies one update to this rank's range and ends the step.
     *
     * @param buf the flat array whose range holds the reduced gradients; on return it holds the
     *     updated parameters there, ready for the all-gather
     */
    public void step(float[] buf) {
        optimizer.step(stage.buffers(), buf);
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
