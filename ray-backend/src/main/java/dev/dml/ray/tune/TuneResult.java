package dev.dml.ray.tune;

import dev.dml.Vocabulary;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.tune.SearchSpace;
import dev.dml.tune.Sweep;
import dev.dml.tune.Trial;
import java.util.List;
import java.util.Optional;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What a sweep from Java found: its trials ranked by the metric, as the table {@code %dml tune}
 * shows, and the best trial's model.
 */
public final class TuneResult {

    private final Sweep sweep;
    private final SearchSpace space;
    private final double wallSeconds;

    TuneResult(Sweep sweep, SearchSpace space, double wallSeconds) {
        this.sweep = sweep;
        this.space = space;
        this.wallSeconds = wallSeconds;
    }

    /** @return the sweep's id: {@code Runs} lists its trials' runs with {@code sweep} = it */
    public String id() {
        return sweep.id();
    }

    /** @return the metric trials are ranked by, e.g. {@code val_accuracy} */
    public String metric() {
        return sweep.metric();
    }

    /**
     * Returns the trials best first: by the metric after their last epoch; trials without one
     * (failed, not run) last.
     *
     * @return the ranking
     */
    public List<Trial> ranked() {
        return sweep.ranked();
    }

    /**
     * Returns the best trial that produced a model.
     *
     * @return the trial, or empty when none did
     */
    public Optional<Trial> bestTrial() {
        return sweep.best();
    }

    /**
     * Returns the best trial's model: its {@code TrainResult}, stopped or not.
     *
     * @return the model, or empty when no trial produced one
     */
    public Optional<TrainResult> best() {
        return sweep.best().map(t -> (TrainResult) t.result());
    }

    /**
     * Returns why the sweep stopped before its last trial.
     *
     * @return the reason, in Java words, or empty when every trial had its turn
     */
    public Optional<String> limit() {
        return Optional.ofNullable(sweep.limit()).map(Vocabulary.JAVA::render);
    }

    /** @return the compute the trials spent: each epoch's seconds times its workers, summed */
    public double workerSeconds() {
        return sweep.trials().stream().mapToDouble(Trial::workerSeconds).sum();
    }

    /** @return the sweep's wall time, from its first trial's start to its last trial's end */
    public double wallSeconds() {
        return wallSeconds;
    }

    /**
     * Returns the trials ranked, one row each: {@code rank}, {@code trial} (its id), one
     * column per varied option (its value as a cell writes it), the metric after the trial's
     * last epoch (NaN without one), {@code epochs} run, {@code status} ({@code done}, {@code
     * stopped early}, ...), {@code worker_seconds}, {@code usd} and {@code failure}.
     *
     * @return the table, best first
     */
    public Table table() {
        List<Trial> ranked = ranked();
        Table t = Table.create("sweep " + id(), IntColumn.create("rank"),
                StringColumn.create("trial"));
        for (SearchSpace.Dimension d : space.dimensions()) {
            t.addColumns(StringColumn.create(d.option().name()));
        }
        t.addColumns(DoubleColumn.create(metric()), IntColumn.create("epochs"),
                StringColumn.create("status"), DoubleColumn.create("worker_seconds"),
                DoubleColumn.create("usd"), StringColumn.create("failure"));
        for (int i = 0; i < ranked.size(); i++) {
            Trial r = ranked.get(i);
            t.intColumn("rank").append(i + 1);
            t.stringColumn("trial").append(r.id());
            for (SearchSpace.Dimension d : space.dimensions()) {
                t.stringColumn(d.option().name()).append(SearchSpace.text(d.option(),
                        r.options()));
            }
            t.doubleColumn(metric()).append(r.last());
            t.intColumn("epochs").append(r.epochs());
            t.stringColumn("status").append(r.status().word());
            t.doubleColumn("worker_seconds").append(r.workerSeconds());
            t.doubleColumn("usd").append(r.usd());
            t.stringColumn("failure").append(r.failure() == null ? "" : r.failure());
        }
        return t;
    }

    @Override
    public String toString() {
        return "TuneResult[" + id() + ", " + sweep.trials().size() + " trials, best "
                + bestTrial().map(b -> b.id() + " " + metric() + "=" + b.last()).orElse("none")
                + "]";
    }
}
