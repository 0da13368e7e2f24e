package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.events.PredictProgress;
import dev.dml.options.PredictOptions;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code %dml predict}: scores a table with a trained model on worker actors of the session's
 * cluster, shows rows scored and throughput while they work, then binds the scored table (the
 * input's columns and the predictions, in the input's row order) to {@code --into} and shows
 * its first rows. The workers run on a thread of their own ({@link Sizing}): a kernel interrupt
 * kills them before the cell ends.
 */
final class PredictCommand extends NamedCommand {

    static final String USAGE = "%dml predict MODEL TABLE|FILE [--workers N] [--batch-size B]"
            + " [--cpus-per-worker C] [--into NAME] [--cluster HOST:PORT] [--debug]";

    PredictCommand() {
        super("predict", "score a table with a trained model on the cluster's workers");
    }

    @Override
    public List<String> usage() {
        return TrainGrammar.helpLines(List.of(USAGE, "",
                "MODEL is the --into of a finished %dml train (a TrainResult variable), or a"
                        + " folder model.save(dir) wrote.",
                "TABLE is a Tablesaw Table variable; FILE a file %dml train reads (.csv,"
                        + " .arrow). It needs the model's feature columns; the label may be"
                        + " missing.",
                "The rows are split into N contiguous shards, one per worker; the scored table"
                        + " keeps the input's",
                "row order and adds p0..p(k-1) and, for a classifier, 'predicted' (class names"
                        + " for text labels).",
                "Line form:", "  %dml predict model test --workers 2 --into scored",
                "Cell form (one 'key: value' per line):",
                "  %%dml predict", "  model: model", "  data: test", "  workers: 2", "",
                "Options:"), PredictOptions.ACCEPTED);
    }

    /** Parses the words and body of a {@code %dml predict} cell. */
    static PredictRequest parse(List<String> args, String body) {
        TrainGrammar.Parsed p = TrainGrammar.PREDICT.readParts(args, body);
        String model = p.slots().get(TrainGrammar.MODEL);
        String source = p.slots().get(TrainGrammar.SOURCE);
        if (model == null || source == null) {
            throw new DmlException("%dml predict needs a model and the data to score"
                    + (model == null ? "" : "; it got only the model '"
                            + DmlException.literal(model) + "'") + ".",
                    "Example: %dml predict model test --workers 2   (MODEL is the --into of"
                            + " %dml train)").speaking(dev.dml.Vocabulary.NOTEBOOK);
        }
        return new PredictRequest(model, source, p.values());
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        PredictRequest request = parse(args, body);
        return Failures.showing(request.debug(), () -> {
            DmlBackend backend = context.session().backend();
            Consumer<String> status = context.statusLine();
            int workers = request.get(PredictOptions.WORKERS);
            status.accept("Starting " + workers + (workers == 1 ? " worker" : " workers")
                    + " to score " + request.source() + " with " + request.model() + "...");
            DmlBackend.Prediction p = Sizing.stoppably("predict",
                    () -> backend.predict(request, progress -> status.accept(line(progress))));
            backend.bind(request.into(), p.table());
            String summary = summary(p, request.into());
            status.accept(summary);
            context.display(Html.data(p.headText(), p.headHtml()));
            return null;
        });
    }

    /** The status line while the workers score. */
    static String line(PredictProgress p) {
        return String.format(Locale.ROOT, "Scoring on %d %s: %,d of %,d rows (%.0f%%), %,.0f"
                + " rows/s", p.workers(), p.workers() == 1 ? "worker" : "workers", p.rows(),
                p.total(), p.total() == 0 ? 100.0 : 100.0 * p.rows() / p.total(),
                p.rowsPerSecond());
    }

    /** The line that replaces the status once the table is bound. */
    static String summary(DmlBackend.Prediction p, String into) {
        return String.format(Locale.ROOT, "Scored %,d rows on %d %s in %.1f s (%,.0f rows/s"
                + " while scoring); the table is bound to '%s'.", p.rows(), p.workers(),
                p.workers() == 1 ? "worker" : "workers", p.seconds(), p.rowsPerSecond(), into);
    }
}
