package dev.dml.ray.train.settings;

import dev.dml.DmlException;
import dev.dml.options.PipelineSchedule;
import dev.dml.options.StageBalance;
import dev.dml.options.StrategyKind;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Optional;

/**
 * How a job spreads the model and the data over its workers ({@code %dml train --strategy}).
 *
 * <pre>{@code
 * Strategy.data()                                   // every worker a whole replica (default)
 * Strategy.model(3)                                 // 3 stages, balanced by parameter count
 * Strategy.modelLayers(2, 1)                        // 2 stages: layers 0-1 and layer 2
 * Strategy.pipeline(4, 8, PipelineSchedule.ONE_F_ONE_B)
 * Strategy.hybrid(2, 2, 4).withBalance(StageBalance.TIME)
 * }</pre>
 *
 * <p>A staged strategy splits the model by layer ({@link dev.dml.ray.model.ModelSpec#layerCount
 * layers}: a linear or convolution layer with the activation or pooling after it) into stages,
 * one Ray actor each. Each step's batch of {@code optBatchSize} rows is cut into micro-batches
 * that flow through the stages: activations forward, their gradients backward, as Ray object
 * references to compact bytes. The gradients of the micro-batches add up, and each stage takes
 * one optimizer step per batch, so a step equals the unsplit model's step on the whole batch.
 * With replicas, each replica trains on its own shard and each stage averages its gradients
 * with its replicas through a ring all-reduce, as data parallelism does.
 *
 * <p>Values are checked at once; {@link dev.dml.ray.train.TrainSpecBuilder#build()} checks them
 * against the model and the batch.
 */
public sealed interface Strategy extends Serializable permits Strategy.Data, Strategy.Staged {

    /**
     * Data parallelism: every worker holds the whole model and trains on its shard; gradients
     * are averaged each step. The default.
     *
     * @return the strategy
     */
    static Strategy data() {
        return Data.INSTANCE;
    }

    /**
     * Model parallelism: {@code stages} actors hold consecutive layers, balanced by parameter
     * count, and the whole batch passes through them in turn.
     *
     * @param stages at least 1, at most the model's layer count
     * @return the strategy
     */
    static Staged model(int stages) {
        return new Staged(StrategyKind.MODEL, 1, stages, 1, PipelineSchedule.GPIPE,
                StageBalance.PARAMETERS, null);
    }

    /**
     * Model parallelism with an explicit split ({@code --stages 2,1}): stage {@code i} holds
     * the next {@code layersPerStage[i]} layers.
     *
     * @param layersPerStage layers of each stage, each at least 1, summing to the layer count
     * @return the strategy
     */
    static Staged modelLayers(int... layersPerStage) {
        return model(Math.max(1, layersPerStage.length)).withLayers(layersPerStage);
    }

    /**
     * Pipeline parallelism: {@code stages} actors work concurrently on {@code microbatches}
     * slices of each batch.
     *
     * @param stages at least 1
     * @param microbatches at least 1; the batch size must be a multiple of it
     * @param schedule GPipe or 1F1B
     * @return the strategy
     */
    static Staged pipeline(int stages, int microbatches, PipelineSchedule schedule) {
        return new Staged(StrategyKind.PIPELINE, 1, stages, microbatches, schedule,
                StageBalance.PARAMETERS, null);
    }

    /**
     * Hybrid parallelism: {@code replicas} data-parallel copies of a {@code stages}-stage
     * pipeline (1F1B), {@code replicas * stages} actors in all.
     *
     * @param replicas at least 1; each trains on its own shard
     * @param stages at least 1
     * @param microbatches at least 1
     * @return the strategy
     */
    static Staged hybrid(int replicas, int stages, int microbatches) {
        return new Staged(StrategyKind.HYBRID, replicas, stages, microbatches,
                PipelineSchedule.ONE_F_ONE_B, StageBalance.PARAMETERS, null);
    }

    /** Data parallelism, see {@link Strategy#data()}. */
    final class Data implements Strategy {

        private static final long serialVersionUID = 1L;
        private static final Data INSTANCE = new Data();

        private Data() {}

        private Object readResolve() {
            return INSTANCE;
        }

        @Override
        public String toString() {
            return "data";
        }
    }

    /** A model split into stages: model, pipeline or hybrid parallelism. Immutable. */
    final class Staged implements Strategy {

        private static final long serialVersionUID = 1L;

        private final StrategyKind kind;
        private final int replicas;
        private final int stages;
        private final int microbatches;
        private final PipelineSchedule schedule;
        private final StageBalance balance;
        private final int[] layers;

        private Staged(StrategyKind kind, int replicas, int stages, int microbatches,
                PipelineSchedule schedule, StageBalance balance, int[] layers) {
            atLeastOne(replicas, "replicas");
            atLeastOne(stages, "stages");
            atLeastOne(microbatches, "microbatches");
            if (schedule == null || balance == null) {
                throw new DmlException("The schedule or balance is null.",
                        "Pass a PipelineSchedule and a StageBalance.");
            }
            this.kind = kind;
            this.replicas = replicas;
            this.stages = stages;
            this.microbatches = microbatches;
            this.schedule = schedule;
            this.balance = balance;
            this.layers = layers;
        }

        private static void atLeastOne(int n, String what) {
            if (n < 1) {
                throw new DmlException("A staged strategy needs at least 1 of " + what
                        + ", got " + n + ".", "Pass a positive count.");
            }
        }

        /**
         * Returns the same strategy with an explicit split: stage {@code i} holds the next
         * {@code layersPerStage[i]} layers; the stage count becomes their number.
         *
         * @param layersPerStage each at least 1
         * @return a new strategy
         */
        public Staged withLayers(int... layersPerStage) {
            if (layersPerStage.length == 0) {
                throw new DmlException("The explicit split names no stage.",
                        "Pass the layers of each stage, such as 2, 1.");
            }
            for (int n : layersPerStage) {
                if (n < 1) {
                    throw new DmlException("Every stage needs at least one layer, got "
                            + Arrays.toString(layersPerStage) + ".",
                            "Pass positive layer counts, such as 2, 1.");
                }
            }
            return new Staged(kind, replicas, layersPerStage.length, microbatches, schedule,
                    balance, layersPerStage.clone());
        }

        /**
         * Returns the same strategy with another automatic balance.
         *
         * @param b by parameter count or by measured time
         * @return a new strategy
         */
        public Staged withBalance(StageBalance b) {
            return new Staged(kind, replicas, stages, microbatches, schedule, b, layers);
        }

        /**
         * Returns the same strategy with another schedule.
         *
         * @param s GPipe or 1F1B
         * @return a new strategy
         */
        public Staged withSchedule(PipelineSchedule s) {
            return new Staged(kind, replicas, stages, microbatches, s, balance, layers);
        }

        /** Returns the kind. @return model, pipeline or hybrid */
        public StrategyKind kind() {
            return kind;
        }

        /** Returns the data-parallel replicas of the pipeline. @return at least 1 */
        public int replicas() {
            return replicas;
        }

        /** Returns the stages of each replica. @return at least 1 */
        public int stages() {
            return stages;
        }

        /** Returns the micro-batches of each step. @return at least 1 */
        public int microbatches() {
            return microbatches;
        }

        /** Returns the schedule. @return GPipe or 1F1B */
        public PipelineSchedule schedule() {
            return schedule;
        }

        /** Returns the automatic balance. @return the balance */
        public StageBalance balance() {
            return balance;
        }

        /**
         * Returns the explicit split, if one was given.
         *
         * @return the layers of each stage
         */
        public Optional<int[]> layersPerStage() {
            return Optional.ofNullable(layers).map(int[]::clone);
        }

        @Override
        public String toString() {
            return kind.word() + "{replicas=" + replicas
                    + ", stages=" + (layers != null ? Arrays.toString(layers) : stages)
                    + ", microbatches=" + microbatches + ", " + schedule.name() + ", "
                    + balance.name() + "}";
        }
    }
}
