package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.magics.live.JobSummary;
import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.magics.live.SummaryTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/**
 * {@code %dml attach RUN [--into NAME]}: redraws a recorded run's live plot from the run store
 * (a job detached by an earlier kernel, typically), follows it to its end, then shows the
 * summary and binds its result as {@code %dml train} does. An interrupt ends the following,
 * not the run.
 */
final class AttachCommand extends NamedCommand {

    /** How often the run store is read for new steps. */
    static final Duration POLL = Duration.ofSeconds(1);
    private static final String USAGE = "%dml attach RUN [--into NAME]";
    private final CommandArgs args = new CommandArgs("attach", MagicsArgs.builder()
            .required("run").keyword("into", MagicsArgs.KeywordSpec.ONCE).onlyKnownKeywords()
            .onlyKnownFlags().build(), USAGE);

    AttachCommand() {
        super("attach", "follow a recorded run (a detached job) with its live plot to its end");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "", "RUN is an id %dml runs lists, or the one %dml train --detach"
                + " printed. The plot is redrawn from the record, then follows the run;"
                + " --into binds its model when it ends.", "Examples:",
                "  %dml attach fraud-20261127-101500-1a2b --into model");
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        Map<String, List<String>> parsed = args.parse(words);
        String runId = parsed.get("run").get(0);
        List<String> into = parsed.getOrDefault("into", List.of());
        DmlBackend backend = context.session().backend();
        long t0 = System.nanoTime();
        try (AttachedRun run = backend.attach(runId)) {
            LiveDashboard dashboard = new LiveDashboard(run.name(), run.epochs(),
                    run.totalSteps());
            String status;
            try (LiveCell cell = new LiveCell(dashboard, context.displaySink(),
                    TrainCommand.FRAME_INTERVAL)) {
                status = run.follow(dashboard, POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DmlException("Stopped following run " + runId + " at "
                        + dashboard.progress() + "; the run goes on.", "Attach again with"
                        + " %dml attach " + runId + ", or stop it with %dml stop " + runId + ".");
            }
            if (status.equals("failed") || status.equals("lost")) {
                String error = run.error();
                throw new DmlException("Run " + runId + " " + status + " at "
                        + dashboard.progress() + (error == null ? "." : ": " + error),
                        "Its record keeps what it had: %dml runs, %dml compare " + runId + ".");
            }
            JobSummary summary = dashboard.summary(runId, status.equals("stopped"),
                    (System.nanoTime() - t0) / 1e9);
            context.display(Html.data(SummaryTable.text(summary), SummaryTable.html(summary)));
            Object result = run.result();
            if (into.isEmpty()) {
                return result;
            }
            backend.bind(into.get(0), result);
            context.display(Html.text("Run " + runId + " " + status + "; its model is bound to "
                    + into.get(0) + "."));
            return null;
        }
    }
}
