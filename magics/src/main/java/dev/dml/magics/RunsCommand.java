package dev.dml.magics;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code %dml runs}: the runs of the run store, newest first, with their key settings and
 * results, as every {@code %dml train} records them; {@code --where} filters, {@code --last}
 * keeps the newest N.
 */
final class RunsCommand extends NamedCommand {

    static final String USAGE = "%dml runs [--where 'CONDITION'] [--last N]";

    RunsCommand() {
        super("runs", "list the recorded runs with their key settings and results");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "",
                "Every %dml train is recorded in the run store ($DML_RUNS_DIR, else"
                        + " ~/.local/share/dml/runs; --no-record keeps none), kernel restarts"
                        + " included.",
                "CONDITION compares a column or a setting with a value: COLUMN OP VALUE, OP one"
                        + " of > >= < <= = !=, several joined by 'and'.",
                "Examples:", "  %dml runs", "  %dml runs --last 5",
                "  %dml runs --where 'val_accuracy > 0.9 and lr < 0.01'",
                "  %dml runs --where 'status = finished'",
                "Then %dml compare RUN RUN to overlay their curves; TrainResult.open(\"RUN\")"
                        + " reopens a run's model.");
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        if (body != null && !body.isBlank()) {
            throw new DmlException("%%dml runs takes no cell body.", "Usage: " + USAGE);
        }
        String where = null;
        int last = 0;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (w.equals("--where")) {
                List<String> condition = new ArrayList<>();
                while (i + 1 < words.size() && !words.get(i + 1).equals("--last")) {
                    condition.add(words.get(++i));
                }
                where = String.join(" ", condition).strip(); // the backend reads the quotes
                if (where.isBlank()) {
                    throw new DmlException("--where needs a condition.",
                            "Example: %dml runs --where 'val_accuracy > 0.9'");
                }
            } else if (w.equals("--last") && i + 1 < words.size()) {
                last = count(words.get(++i));
            } else {
                throw new DmlException("%dml runs: unexpected '" + DmlException.literal(w)
                        + "'.", "Usage: " + USAGE);
            }
        }
        RunViews.RunList runs = context.session().backend().runs(where, last);
        if (runs.rows().isEmpty()) {
            context.display(Html.text(runs.total() == 0 ? "No runs recorded in " + runs.store()
                    + " yet: every %dml train records one."
                    : "None of the " + runs.total() + " runs in " + runs.store() + " matches"
                            + (where == null ? "." : " --where " + where + ".")));
            return null;
        }
        String title = String.format(Locale.ROOT, "%d of %d runs in %s, newest first",
                runs.rows().size(), runs.total(), runs.store());
        context.display(Html.table(title, runs.header(), runs.rows()));
        return null;
    }

    private static int count(String word) {
        try {
            int n = Integer.parseInt(word);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new DmlException("--last takes a count of runs, not '" + DmlException.literal(word)
                + "'.", "Example: %dml runs --last 20");
    }
}
