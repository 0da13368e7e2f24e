package dev.dml.magics;

import dev.dml.DmlException;
import java.util.regex.Pattern;

/**
 * {@code %dml train --detach} and {@code %dml stop RUN}: a job handed to a driver that outlives
 * the kernel, and the stop request a later kernel sends it through the run store.
 */
final class DetachedJobs {

    /** A run id as the run store makes it: the job's name, its start time, 4 hex digits. */
    private static final Pattern RUN_ID = Pattern.compile(".+-\\d{8}-\\d{6}-[0-9a-f]{4}");

    private DetachedJobs() {}

    /** Whether a word is a run id (a session's job ids are {@code NAME-N-HEX}). */
    static boolean isRunId(String word) {
        return RUN_ID.matcher(word).matches();
    }

    /** Hands the job over and says how to follow and stop it; there is no result to bind. */
    static Object detach(CommandContext context, TrainRequest request) {
        if (request.into() != null) {
            throw new DmlException("--into binds a result, and a detached job has none until it"
                    + " ends.", "Drop --into; %dml attach RUN --into NAME binds it later.");
        }
        PlannedTrain.Chosen chosen = PlannedTrain.resolve(context.session(), request);
        if (chosen.row() != null) {
            context.display(Html.text(chosen.line()));
        }
        String run = context.session().backend().detach(chosen.request());
        context.display(Html.text("Run " + run + " is detached: it trains on without this"
                + " kernel. Follow it with %dml attach " + run + " (any kernel), stop it with"
                + " %dml stop " + run + "."));
        return null;
    }

    /** Asks a detached run to stop, and says what became of the request. */
    static Object stop(CommandContext context, String run) {
        String status = context.session().backend().stopRun(run);
        context.display(Html.text(status.equals("running")
                ? "Asked run " + run + " to stop; its driver stops it within seconds."
                + " %dml attach " + run + " follows it to its end."
                : "Run " + run + " has already ended (" + status + ")."));
        return null;
    }
}
