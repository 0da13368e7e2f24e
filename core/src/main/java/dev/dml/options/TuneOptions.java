package dev.dml.options;

import java.util.List;

/**
 * The options {@code %dml tune} takes besides {@code %dml train}'s, each declared once. A sweep
 * reads every train option as each of its trials would; an option written as a space ({@code
 * --lr 1e-4..1e-2:log}, {@code --hidden 32|64,64}) varies from trial to trial.
 */
public final class TuneOptions {

    private TuneOptions() {}

    /** How many configurations the sweep tries. */
    public static final Option<Integer> TRIALS = Declaration.kernel("trials", ValueType.count(),
            "N", "configurations to try: samples of the space with --search random; with --search"
            + " grid every combination, which N must equal when given").example("12")
            .noDefault("the grid's size; 10 with --search random").java("optTrials").done();

    /** How configurations are drawn from the space. */
    public static final Option<SearchKind> SEARCH = Declaration.kernel("search",
            ValueType.choice(SearchKind.class), Choice.metavar(SearchKind.class),
            "grid: every combination of the"
            + " listed values; random: --trials draws, ranges sampled (log-uniformly with :log),"
            + " seeded by --seed").example("random")
            .noDefault("grid when every varied option lists its values, else random")
            .java("optSearch").done();

    /** Early stopping of weak trials. */
    public static final Option<TrialScheduler> SCHEDULER = Declaration.kernel("scheduler",
            ValueType.choice(TrialScheduler.class), Choice.metavar(TrialScheduler.class),
            "asha stops a trial at an epoch rung"
            + " (1, 3, 9, ... epochs) when its --metric is not in the top 1/--reduction of the"
            + " results recorded at that rung; none runs every trial to its end")
            .example("asha").fixed(TrialScheduler.NONE).java("optScheduler").done();

    /** The metric trials are ranked by. */
    public static final Option<TrialMetric> METRIC = Declaration.kernel("metric",
            ValueType.choice(TrialMetric.class), "METRIC",
            "the epoch metric trials are ranked and stopped by (higher val_accuracy, lower"
            + " losses are better; val_ metrics need --validation)").example("val_accuracy")
            .derived("val_loss with --validation, else train_loss", v -> v.isSet(
                    TrainOptions.VALIDATION) ? TrialMetric.VAL_LOSS
                    : TrialMetric.TRAIN_LOSS).java("optMetric").done();

    /** ASHA's reduction factor. */
    public static final Option<Integer> REDUCTION = Declaration.kernel("reduction",
            ValueType.count(), "ETA", "ASHA's reduction factor: rungs at GRACE x ETA^k epochs,"
            + " and 1/ETA of the trials go on from each (at least 2)").example("3").fixed(3)
            .java("optReduction").done();

    /** Epochs of ASHA's first rung. */
    public static final Option<Integer> GRACE = Declaration.kernel("grace-epochs",
            ValueType.count(), "GRACE", "epochs every trial runs before ASHA may stop it (its"
            + " first rung)").example("1").fixed(1).java("optGraceEpochs").done();

    /** Trials that run at once. */
    public static final Option<Integer> CONCURRENT = Declaration.kernel("concurrent",
            ValueType.count(), "K", "trials that run at once, each with its own workers")
            .example("2").noDefault("as many as the cluster's CPUs hold")
            .java("optConcurrent").done();

    /** The sweep a run belongs to; each trial's spec carries it into the run store. */
    public static final Option<String> SWEEP = Declaration.spec("sweep", ValueType.text(), "ID",
            "the sweep this run is a trial of, recorded in the run store (%dml tune sets it)")
            .example("fashion-20261127-2300").noDefault("none")
            .java("opt(TuneOptions.SWEEP, ...)").done();

    /** Every option {@code %dml tune} adds, in the order help lists them. */
    public static final List<Option<?>> ALL = List.of(TRIALS, SEARCH, SCHEDULER, METRIC,
            REDUCTION, GRACE, CONCURRENT);
}
