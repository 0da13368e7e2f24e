package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.tune.SearchSpace;
import dev.dml.tune.SweepPlan;
import dev.dml.tune.Trial;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@code %dml tune} cell, read: the data, the options every trial shares, the space the
 * others span, and the sweep's own options. Checked before anything starts, so a bad space or
 * a metric the trials cannot report fails in one line.
 *
 * @param source the data, as {@code %dml train} takes it
 * @param fixed the options every trial shares (the sweep's own among them)
 * @param space the varied options
 */
record TuneRequest(String source, OptionValues fixed, SearchSpace space) {

    /** Random draws when {@code --trials} is not given. */
    static final int RANDOM_TRIALS = SweepPlan.RANDOM_TRIALS;

    /**
     * Reads a cell.
     *
     * @param args the words after {@code tune}
     * @param body the cell body, or null
     * @return the request
     * @throws DmlException what is wrong and how to write it, in notebook words
     */
    static TuneRequest parse(List<String> args, String body) {
        try {
            return read(args, body);
        } catch (DmlException e) {
            throw e.speaking(Vocabulary.NOTEBOOK);
        }
    }

    private static TuneRequest read(List<String> args, String body) {
        TrainGrammar.Texts texts = TrainGrammar.TUNE.readTexts(args, body);
        OptionValues fixed = OptionValues.empty();
        List<SearchSpace.Dimension> dimensions = new ArrayList<>();
        for (Map.Entry<Option<?>, String> e : texts.options().entrySet()) {
            if (SearchSpace.isSpace(e.getValue())) {
                try {
                    dimensions.add(SearchSpace.parse(e.getKey(), e.getValue()));
                } catch (DmlException bad) {
                    throw new DmlException("%dml tune: " + bad.whatTemplate(),
                            bad.hintTemplate());
                }
            } else {
                fixed = TrainGrammar.TUNE.with(fixed, e.getKey(), e.getValue());
            }
        }
        String source = texts.slots().get(TrainGrammar.SOURCE);
        if (source == null) {
            throw new DmlException("%dml tune needs its data: a table variable or a file.",
                    "Example: %dml tune fashion {label=y} {lr=1e-4..1e-2:log}"
                    + " {scheduler=asha}");
        }
        if (fixed.get(TrainOptions.LABEL) == null) {
            throw new DmlException("%dml tune needs {label}: the column to predict.",
                    "Example: %dml tune " + DmlException.literal(source) + " {label=y}"
                    + " {lr=1e-4..1e-2:log}");
        }
        for (Option<?> refused : List.of(TrainOptions.BACKGROUND, TrainOptions.PLAN,
                TrainOptions.RESUME, TrainOptions.DETACH)) {
            if (fixed.isSet(refused) && !Boolean.FALSE.equals(fixed.get(refused))) {
                throw new DmlException("%dml tune runs its trials in its cell and takes no {"
                        + refused.name() + "}.", "Leave {" + refused.name() + "} out; it is"
                        + " for %dml train.");
            }
        }
        SearchSpace space = new SearchSpace(dimensions);
        plan(fixed, space);
        return new TuneRequest(source, fixed, space);
    }

    private static SweepPlan plan(OptionValues fixed, SearchSpace space) {
        return SweepPlan.check("%dml tune", fixed, space, fixed.isSet(TrainOptions.VALIDATION));
    }

    /**
     * Returns the checked plan: the metric, the search, the scheduler, the concurrency.
     *
     * @return the plan
     */
    SweepPlan plan() {
        return plan(fixed, space);
    }

    /**
     * Returns how configurations are drawn.
     *
     * @return {@code grid} or {@code random}
     */
    String search() {
        return plan().search().word();
    }

    /**
     * The trials, each a {@code %dml train} request of the sweep: its varied values, the
     * shared ones, and the sweep's id; the sweep's budget and deadline are not the trial's.
     *
     * @param sweepId the sweep's id, recorded with each run
     * @return the trials, in the order they start
     */
    List<Trial> trials(String sweepId) {
        OptionValues shared = fixed.without(TrainOptions.BUDGET).without(TrainOptions.DEADLINE)
                .without(TrainOptions.INTO);
        for (Option<?> o : TuneOptions.ALL) {
            shared = shared.without(o);
        }
        return plan().trials(shared, sweepId);
    }

    /**
     * A trial as the request {@code %dml train} would have made of it.
     *
     * @param trial the trial
     * @return the request its job is prepared from
     */
    TrainRequest request(Trial trial) {
        return new TrainRequest(source, trial.options().with(TrainOptions.NO_PLOTS, true));
    }

    /**
     * Returns the variable the best trial's result is bound to.
     *
     * @return {@code --into}, else {@code best}
     */
    String into() {
        String into = fixed.get(TrainOptions.INTO);
        return into != null ? into : "best";
    }
}
