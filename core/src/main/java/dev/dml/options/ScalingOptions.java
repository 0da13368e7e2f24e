package dev.dml.options;

import static dev.dml.options.Declaration.choice;
import static dev.dml.options.Declaration.spec;

import java.util.List;

/**
 * How a job spreads over the cluster: strategy, stages, workers, their resources and nodes.
 * Declared here by concern; {@link TrainOptions} gathers every group, so each option is {@code
 * TrainOptions.NAME} wherever it is used.
 */
interface ScalingOptions {

    /** How the work is split. */
    Option<StrategyKind> STRATEGY = choice("strategy",
            StrategyKind.class, "how the model and the data are split over the workers")
            .example("pipeline").fixed(StrategyKind.DATA).java("optStrategy").done();

    /** Stages of a staged job: a count, or layers per stage. */
    Option<List<Integer>> STAGES = spec("stages", ValueType.sizes(),
            "K|2,1,...", "stages (model, pipeline, hybrid): a count, or layers per stage")
            .example("3").fixed(List.of(2)).java("the stages of optStrategy").done();

    /** How an automatic split balances the stages. */
    Option<StageBalance> BALANCE = choice("balance", StageBalance.class,
            "split stages by parameter count or by measured time").example("time")
            .fixed(StageBalance.PARAMETERS).java("the balance of optStrategy").done();

    /** Micro-batches per step of a pipeline. */
    Option<Integer> MICROBATCHES = spec("microbatches", ValueType.count(), "M",
            "micro-batches per step (pipeline, hybrid)").example("8")
            .derived("4; 1 for --strategy model",
                    v -> v.get(STRATEGY) == StrategyKind.MODEL ? 1 : 4)
            .java("the micro-batches of optStrategy").done();

    /** Data-parallel replicas of a pipeline. */
    Option<Integer> REPLICAS = spec("replicas", ValueType.count(), "D",
            "data-parallel replicas of the pipeline (hybrid)").example("2")
            .derived("2 for hybrid, else 1", v -> v.get(STRATEGY) == StrategyKind.HYBRID ? 2 : 1)
            .java("the replicas of optStrategy").done();

    /** The pipeline schedule. */
    Option<PipelineSchedule> SCHEDULE = choice("schedule",
            PipelineSchedule.class,
            "the pipeline schedule: all forwards first, or one forward one backward")
            .example("1f1b")
            .derived("gpipe; 1f1b for hybrid", v -> v.get(STRATEGY) == StrategyKind.HYBRID
                    ? PipelineSchedule.ONE_F_ONE_B : PipelineSchedule.GPIPE)
            .java("the schedule of optStrategy").done();

    /**
     * Worker actors, or an elastic range. The data stays in MAX shards at any size (a worker
     * may train several), so the global batch and the learning rate never change.
     */
    Option<WorkerRange> WORKERS = spec("workers", ValueType.workerRange(),
            "N|MIN:MAX", "worker actors, each its own JVM; MIN:MAX grows and shrinks with the"
            + " cluster (data parallelism), every step still training MAX batches at the same"
            + " learning rate")
            .example("2")
            .derived("1; replicas x stages for model, pipeline, hybrid", ScalingOptions::workers)
            .java("optWorkers").done();

    /** CPUs each worker reserves. */
    Option<Double> CPUS_PER_WORKER = spec("cpus-per-worker",
            ValueType.nonNegative(), "C", "CPUs each worker reserves (0 lets workers share)")
            .example("2").fixed(1.0).java("optCpusPerWorker").done();

    /** GPUs each worker reserves. */
    Option<Double> GPUS_PER_WORKER = spec("gpus-per-worker",
            ValueType.nonNegative(), "G", "GPUs each worker reserves").example("1").fixed(0.0)
            .java("optGpusPerWorker").done();

    /** The number type of the layers' products. */
    Option<Precision> PRECISION = choice("precision", Precision.class,
            "run the linear and convolution layers' products in half floats, with a dynamic"
            + " loss scale, as"
            + " PyTorch's autocast and GradScaler do (fp16, on GPUs); parameters, gradients and"
            + " the optimizer stay float32. bf16 is refused: DJL 0.35.1's PyTorch engine has no"
            + " bfloat16 tensors").example("fp16").fixed(Precision.FP32).java("optPrecision")
            .done();

    /** How the workers are placed on the cluster's nodes. */
    Option<Placement> PLACEMENT = choice("placement", Placement.class,
            "put the workers on as few nodes as hold them, or on as many nodes as there are")
            .example("spread").fixed(Placement.PACK).java("opt(TrainOptions.PLACEMENT, ...)")
            .done();

    private static WorkerRange workers(OptionValues v) {
        return WorkerRange.of(v.get(STRATEGY) == StrategyKind.DATA ? 1
                : v.get(REPLICAS) * TrainOptions.stageCount(v));
    }
}
