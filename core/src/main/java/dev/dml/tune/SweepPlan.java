package dev.dml.tune;

import dev.dml.options.TrialScheduler;
import dev.dml.options.TrialMetric;
import dev.dml.options.SearchKind;
import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * What {@code %dml tune} and {@code Dml.tune} share between reading a sweep and running it:
 * the checks on its settings, its trials, its ASHA scheduler and how many trials run at once.
 * Messages are templates ({@code {trials}}), rendered in the words of the surface that made the
 * plan; {@code who} names that surface ({@code %dml tune}, {@code Dml.tune}).
 */
public final class SweepPlan {

    /** Random draws when {@code trials} is not given. */
    public static final int RANDOM_TRIALS = 10;
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern(
            "yyyyMMdd-HHmmss");

    private final OptionValues sweep;
    private final SearchSpace space;
    private final TrialMetric metric;

    private SweepPlan(OptionValues sweep, SearchSpace space, TrialMetric metric) {
        this.sweep = sweep;
        this.space = space;
        this.metric = metric;
    }

    /**
     * Checks a sweep's settings.
     *
     * @param who the surface, e.g. {@code %dml tune}, as messages start
     * @param sweep the sweep's own options ({@link TuneOptions#ALL}), others ignored
     * @param space the varied options
     * @param validated whether the trials have validation rows
     * @return the plan
     * @throws DmlException when nothing varies, a {@code val_} metric has no validation rows, or
     *     {@code trials} differs from the grid's size
     */
    public static SweepPlan check(String who, OptionValues sweep, SearchSpace space,
            boolean validated) {
        if (space.dimensions().isEmpty()) {
            throw new DmlException(who + ": no option varies, so there is nothing to"
                    + " search.", "Write a space where an option's value goes, e.g."
                    + " {lr=1e-4..1e-2:log} or {hidden=32|64,64}.");
        }
        TrialMetric metric = sweep.isSet(TuneOptions.METRIC) ? sweep.get(TuneOptions.METRIC)
                : validated ? TrialMetric.VAL_LOSS : TrialMetric.TRAIN_LOSS;
        if (metric != TrialMetric.TRAIN_LOSS && !validated) {
            throw new DmlException(who + " ranks trials by {metric=" + metric + "}, which"
                    + " needs validation rows.", "Add {validation=0.2}, or rank by"
                    + " {metric=train_loss}.");
        }
        SweepPlan plan = new SweepPlan(sweep, space, metric);
        if (plan.search() == SearchKind.GRID) {
            int size = space.gridSize();
            Integer trials = sweep.get(TuneOptions.TRIALS);
            if (trials != null && trials != size) {
                throw new DmlException(who + ": the grid has " + size + " configurations,"
                        + " and {trials=" + trials + "} asks for " + trials + ".", "Leave"
                        + " {trials} out to run the grid, or draw " + trials + " with"
                        + " {search=random}.");
            }
        }
        return plan;
    }

    /**
     * Returns a new sweep id.
     *
     * @return e.g. {@code sweep-20261128-023000-1a2b}
     */
    public static String newId() {
        return "sweep-" + LocalDateTime.now().format(ID_TIME) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    }

    /**
     * Returns the varied options.
     *
     * @return the space
     */
    public SearchSpace space() {
        return space;
    }

    /**
     * Returns the metric trials are ranked and stopped by.
     *
     * @return {@code val_accuracy}, {@code val_loss} or {@code train_loss}
     */
    public String metric() {
        return metric.word();
    }

    /**
     * Returns how configurations are drawn: as given, else grid when every dimension lists its
     * values.
     *
     * @return grid or random
     */
    public SearchKind search() {
        SearchKind given = sweep.get(TuneOptions.SEARCH);
        if (given != null) {
            return given;
        }
        return space.dimensions().stream().allMatch(d -> d instanceof SearchSpace.Choices)
                ? SearchKind.GRID : SearchKind.RANDOM;
    }

    /**
     * The trials: each configuration of the space over the options every trial shares, with
     * the sweep's id; a checkpoint folder becomes one per trial.
     *
     * @param shared the options every trial shares (none of the sweep's own)
     * @param sweepId the sweep's id, recorded with each run
     * @return the trials, in the order they start
     */
    public List<Trial> trials(OptionValues shared, String sweepId) {
        OptionValues base = SearchSpace.inSweep(shared, sweepId);
        Integer given = sweep.get(TuneOptions.TRIALS);
        List<OptionValues> configs = search() == SearchKind.GRID ? space.grid(base)
                : space.random(base, given != null ? given : RANDOM_TRIALS,
                        base.get(TrainOptions.SEED));
        List<Trial> out = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            OptionValues v = configs.get(i);
            String dir = v.get(TrainOptions.CHECKPOINT_DIR);
            Trial t = new Trial(i + 1, v, space.describe(v));
            if (dir != null) { // trials never share a checkpoint folder
                v = v.with(TrainOptions.CHECKPOINT_DIR, dir + "/" + sweepId + "/" + t.id());
                t = new Trial(i + 1, v, t.settings());
            }
            out.add(t);
        }
        return out;
    }

    /**
     * Returns the scheduler the sweep asks for.
     *
     * @param trials the trials, whose longest sets the rungs
     * @return ASHA, or null with {@code scheduler=none}
     * @throws DmlException when the trials run too few epochs for a rung
     */
    public Asha asha(List<Trial> trials) {
        if (sweep.get(TuneOptions.SCHEDULER) != TrialScheduler.ASHA) {
            return null;
        }
        int epochs = trials.stream().mapToInt(t -> t.options().get(TrainOptions.EPOCHS))
                .max().orElse(1);
        Asha asha = new Asha(epochs, sweep.get(TuneOptions.GRACE),
                sweep.get(TuneOptions.REDUCTION), Sweep.higherIsBetter(metric));
        if (asha.rungs().isEmpty()) {
            throw new DmlException("{scheduler=asha} has no rung to stop a trial at: its"
                    + " trials run " + epochs + " epochs, and the first rung is at {"
                    + "grace-epochs=" + sweep.get(TuneOptions.GRACE) + "}.", "Train more"
                    + " epochs than {grace-epochs}, e.g. {epochs=9}, or leave {scheduler}"
                    + " out.");
        }
        return asha;
    }

    /**
     * Returns how many trials run at once: {@code concurrent} as given, else as many as the
     * cluster's CPUs hold, each trial reserving its workers' CPUs.
     *
     * @param trials the trials
     * @param clusterCpus the CPUs of the cluster's live nodes, asked only without {@code
     *     concurrent}
     * @return at least 1, at most the trials' count
     */
    public int concurrent(List<Trial> trials, DoubleSupplier clusterCpus) {
        Integer given = sweep.get(TuneOptions.CONCURRENT);
        if (given != null) {
            return Math.min(given, trials.size());
        }
        double perTrial = trials.stream().mapToDouble(t -> t.options().get(
                TrainOptions.WORKERS).max() * t.options().get(TrainOptions.CPUS_PER_WORKER))
                .max().orElse(1);
        int fits = perTrial <= 0 ? trials.size()
                : (int) Math.floor(clusterCpus.getAsDouble() / perTrial);
        return Math.max(1, Math.min(fits, trials.size()));
    }

    /**
     * Returns the sweep, ready to run.
     *
     * @param id its id
     * @param trials its trials
     * @param asha its scheduler, or null
     * @param concurrent how many trials run at once
     * @param budget the sweep's dollars, or null for no limit
     * @param deadline the sweep's seconds, or null for no limit
     * @return the sweep
     */
    public Sweep sweep(String id, List<Trial> trials, Asha asha, int concurrent, Double budget,
            Double deadline) {
        return new Sweep(id, trials, metric, asha, concurrent,
                budget == null ? Double.NaN : budget, deadline == null ? Double.NaN : deadline);
    }
}
