package dev.dml.ray.tune;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.options.setters.GenerateSetters;
import dev.dml.ray.cluster.ClusterNodes;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.train.TrainSpec;
import dev.dml.tune.SearchSpace;
import dev.dml.tune.Sweep;
import dev.dml.tune.SweepPlan;
import dev.dml.tune.Trial;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sweep from Java, as {@code %dml tune} runs one from a cell and Ray Tune's {@code Tuner} in
 * Python: the trials vary some options of a base spec, run a few at a time as ordinary recorded
 * jobs (their settings hold {@code sweep}, so {@code Runs} finds them), and ASHA may stop the
 * weak ones at epoch rungs.
 *
 * <pre>{@code
 * TuneResult r = Dml.tune(spec)                         // spec: optValidationFraction(0.2)
 *         .optSpace(TrainOptions.LR, "1e-4..1e-2:log")  // the cell's --lr 1e-4..1e-2:log
 *         .optSpace(TrainOptions.HIDDEN, "32|64,64|128")
 *         .optSearch("random").optTrials(12)
 *         .optAsha(1, 3).optMetric("val_accuracy").optConcurrent(2)
 *         .build().run();
 * TrainResult best = r.best().orElseThrow();
 * }</pre>
 *
 * <p>Bad input fails in {@link #builder}'s methods and at {@link Builder#build()}, before any
 * cluster or worker starts.
 */
public final class Tuner {

    private static final Logger LOG = LoggerFactory.getLogger(Tuner.class);
    private static final Duration NODES_TIMEOUT = Duration.ofSeconds(30);
    private static final String WHO = "Dml.tune";
    private static final Pattern SPACE_TERM = Pattern.compile("\\{([a-z0-9-]+)=([^{}]*)}");

    private final TrainSpec base;
    private final SweepPlan plan;
    private final String id;
    private final List<Trial> trials;
    private final TrainSpec first;
    private final DriverProcess borrowed;
    private final Double budget;
    private final Double deadline;

    private Tuner(Builder b, SweepPlan plan, List<Trial> trials, TrainSpec first, String id) {
        this.base = b.base;
        this.plan = plan;
        this.id = id;
        this.trials = trials;
        this.first = first;
        this.borrowed = b.driver;
        this.budget = b.budget;
        this.deadline = b.deadline;
    }

    /**
     * Starts a sweep over a base spec.
     *
     * @param base what every trial trains, before its varied options are set
     * @return a builder
     */
    public static Builder builder(TrainSpec base) {
        return new Builder(base);
    }

    /** @return the sweep's id, recorded with each trial's run as {@code sweep} */
    public String id() {
        return id;
    }

    /** @return the trials, in the order they start; each run's status is read from them */
    public List<Trial> trials() {
        return trials;
    }

    /**
     * Runs the sweep and waits: on the driver given to {@link Builder#optDriver}, else on a
     * cluster and driver opened for the sweep (the spec's cluster address, else {@code
     * RAY_ADDRESS}, else an embedded head) and closed at its end. Every trial runs on that one
     * driver.
     *
     * @return the trials ranked and the best trial's model
     * @throws DmlException when the cluster cannot be reached, or on an interrupt (the running
     *     trials are stopped first and the thread's interrupt flag is set again)
     */
    public TuneResult run() {
        if (borrowed != null) {
            return run(borrowed);
        }
        ClusterSpec.Builder cs = ClusterSpec.builder();
        base.clusterAddress().ifPresent(cs::optAddress);
        try (RayCluster cluster = RayCluster.open(cs.build())) {
            return run(cluster.openDriver());
        }
    }

    private TuneResult run(DriverProcess driver) {
        Sweep sweep = plan.sweep(id, trials, plan.asha(trials),
                plan.concurrent(trials, () -> cpus(driver)), budget, deadline);
        long t0 = System.nanoTime();
        try {
            sweep.run(new JobTrials(base, driver, first), () -> { });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("Sweep " + id + " was interrupted: its running trials were"
                    + " stopped and their workers have ended.", "Run it again; Runs.open()"
                    + " lists the trials recorded, their settings holding sweep = " + id + ".",
                    e);
        }
        return new TuneResult(sweep, plan.space(), (System.nanoTime() - t0) / 1e9);
    }

    /** The CPUs of the cluster's live nodes; this machine's when they cannot be read. */
    private static double cpus(DriverProcess driver) {
        try {
            return driver.call(new ClusterNodes(), NODES_TIMEOUT).stream()
                    .filter(n -> n.alive).mapToDouble(n -> n.cpus).sum();
        } catch (DmlException e) {
            LOG.warn("cannot list the cluster's nodes: {}", e.getMessage());
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /**
     * Builds a {@link Tuner}: {@code optSpace} at least once; every other setting has the
     * default {@code %dml tune} gives it (docs/train-options.md lists them). The setters of
     * single options ({@code optTrials}, {@code optMetric}, ...) are derived from their
     * declarations in {@link TuneOptions} into {@link TuneSetters}.
     */
    @GenerateSetters(catalogue = TuneOptions.class, name = "TuneSetters")
    public static final class Builder implements TuneSetters {
        private final TrainSpec base;
        private final List<SearchSpace.Dimension> dimensions = new ArrayList<>();
        private OptionValues sweep = OptionValues.empty();
        private Double budget;
        private Double deadline;
        private DriverProcess driver;

        private Builder(TrainSpec base) {
            if (base == null) {
                throw new DmlException(WHO + " needs a base spec, got null.", "Pass the"
                        + " TrainSpec every trial trains: TrainSpec.builder()...build().");
            }
            this.base = base;
        }

        /**
         * Varies an option, written as {@code %dml tune} takes it: {@code LOW..HIGH} (a range;
         * {@code :log} samples it log-uniformly) or values {@code A|B|C}.
         *
         * @param option an option of {@link TrainOptions} the spec takes, e.g. {@code LR}
         * @param space e.g. {@code "1e-4..1e-2:log"} or {@code "32,32|64,64|128"}
         * @return this builder
         * @throws DmlException when the space is not one, or the option is varied already
         */
        public Builder optSpace(Option<?> option, String space) {
            if (option == null || space == null) {
                throw java(new DmlException(WHO + ": optSpace needs an option and its space.",
                        "E.g. optSpace(TrainOptions.LR, \"1e-4..1e-2:log\")."));
            }
            String term = "{" + option.name() + "}";
            String java = "TrainOptions." + option.constant();
            if (dimensions.stream().anyMatch(d -> d.option().equals(option))) {
                throw java(new DmlException(WHO + " has two spaces for " + java + ".",
                        "Call optSpace once per option."));
            }
            try {
                dimensions.add(SearchSpace.parse(option, space));
            } catch (DmlException bad) {
                throw java(new DmlException(WHO + ": " + bad.whatTemplate().replace(term, java),
                        bad.hintTemplate().replace(term, java)));
            }
            return this;
        }

        /**
         * Stops weak trials with ASHA, as Ray Tune's {@code ASHAScheduler(grace_period,
         * reduction_factor)}: rungs at {@code grace x reduction^k} epochs.
         *
         * @param grace the first rung's epochs
         * @param reduction 1/reduction of the trials go on from a rung
         * @return this builder
         */
        public Builder optAsha(int grace, int reduction) {
            return optScheduler("asha").optGraceEpochs(grace).optReduction(reduction);
        }

        /**
         * Sets the dollars the whole sweep may spend: when the trials' cost reaches it, the
         * running trials stop and no more start (nodes need a price).
         *
         * @param usd above 0
         * @return this builder
         */
        public Builder optBudget(double usd) {
            if (!(usd > 0) || Double.isInfinite(usd)) {
                throw java(new DmlException(WHO + ": optBudget must be above 0 dollars, got "
                        + usd + ".", "E.g. optBudget(2.50), or leave it out."));
            }
            this.budget = usd;
            return this;
        }

        /**
         * Sets the wall time the whole sweep may take: then the running trials stop and no
         * more start.
         *
         * @param time above 0
         * @return this builder
         */
        public Builder optDeadline(Duration time) {
            if (time == null || time.isNegative() || time.isZero()) {
                throw java(new DmlException(WHO + ": optDeadline must be above 0, got " + time
                        + ".", "E.g. optDeadline(Duration.ofMinutes(30)), or leave it out."));
            }
            this.deadline = time.toMillis() / 1e3;
            return this;
        }

        /**
         * Runs the trials on a driver the caller keeps open (the kernel's session driver)
         * instead of a cluster opened for the sweep.
         *
         * @param borrowed the driver
         * @return this builder
         */
        public Builder optDriver(DriverProcess borrowed) {
            this.driver = borrowed;
            return this;
        }

        /**
         * Checks the sweep, draws its trials and builds the first trial's spec, so a bad
         * space, metric or value fails before anything starts.
         *
         * @return the tuner; {@link Tuner#run()} runs it
         * @throws DmlException naming what is wrong, in Java words
         */
        public Tuner build() {
            try {
                SweepPlan plan = SweepPlan.check(WHO, sweep, new SearchSpace(dimensions),
                        base.validationTable().isPresent());
                String id = SweepPlan.newId();
                List<Trial> trials = plan.trials(base.options(), id);
                plan.asha(trials); // refuses rungs the trials never reach
                TrainSpec first = JobTrials.spec(base, trials.get(0));
                requireModelVaries(plan.space(), base, first);
                return new Tuner(this, plan, trials, first, id);
            } catch (DmlException e) {
                throw java(e);
            }
        }

        /**
         * Sets an option of {@link TuneOptions}, as {@code %dml tune --name value} does; the
         * {@code optX} setters of {@link TuneSetters} set each through it.
         *
         * @param option an option of {@link TuneOptions#ALL}
         * @param value its value, checked now
         * @param <T> the value's type
         * @return this builder
         * @throws DmlException for another option or a bad value
         */
        @Override
        public <T> Builder opt(Option<T> option, T value) {
            if (option == null || !TuneOptions.ALL.contains(option)) {
                String got = option == null ? "null" : option.constant();
                throw java(new DmlException(WHO + ": opt sets the sweep's own options"
                        + " (TuneOptions), got " + got + ".", "Set a training option on the"
                        + " base spec, or vary it with optSpace."));
            }
            try {
                sweep = sweep.with(option, value);
            } catch (DmlException e) {
                throw java(e);
            }
            return this;
        }

        @Override
        public <T> Builder optWord(Option<T> option, String word) { // a choice's word
            T value;
            try {
                value = option.checkWord(word);
            } catch (DmlException e) {
                throw java(e);
            }
            return opt(option, value);
        }

        /**
         * Refuses a space over the model's family or hidden sizes when the base spec set its
         * model whole ({@code setModel(ModelSpec)}), which those options cannot change: such a
         * model passes to every spec built from the base as the same instance, where one set
         * by family is built anew from the options.
         */
        private static void requireModelVaries(SearchSpace space, TrainSpec base,
                TrainSpec first) {
            if (first.model() != base.model()) {
                return;
            }
            for (SearchSpace.Dimension d : space.dimensions()) {
                Option<?> o = d.option();
                if (o.equals(TrainOptions.HIDDEN) || o.equals(TrainOptions.MODEL)) {
                    throw new DmlException(WHO + " varies TrainOptions." + o.constant()
                            + ", but the base spec sets its model whole with"
                            + " setModel(ModelSpec), which that option does not change.",
                            "Set the model by family in the base spec:"
                            + " setModel(ModelSpec.Family.MLP, 64).");
                }
            }
        }

        /** The exception in Java words, its spaces written as {@link #optSpace} takes them. */
        private static DmlException java(DmlException e) {
            return new DmlException(spaces(e.whatTemplate()), spaces(e.hintTemplate()),
                    e.getCause()).speaking(Vocabulary.JAVA);
        }

        /** {@code {lr=1e-4..1e-2:log}} as {@code optSpace(TrainOptions.LR, "1e-4..1e-2:log")}. */
        private static String spaces(String template) {
            Matcher m = SPACE_TERM.matcher(template);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                Optional<Option<?>> o = TrainOptions.byName(m.group(1));
                String java = o.isPresent() && SearchSpace.isSpace(m.group(2))
                        ? "optSpace(TrainOptions." + o.get().constant() + ", \"" + m.group(2)
                                + "\")" : m.group();
                m.appendReplacement(out, Matcher.quoteReplacement(java));
            }
            return m.appendTail(out).toString();
        }
    }
}
