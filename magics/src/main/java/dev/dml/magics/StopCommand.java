package dev.dml.magics;

import dev.dml.DmlException;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** {@code %dml stop [job]}: stops a job (the running one by default) and frees its workers. */
final class StopCommand extends NamedCommand {

    private static final String USAGE = "%dml stop [JOB|RUN]";
    private final CommandArgs args = new CommandArgs("stop",
            MagicsArgs.builder().optional("job").onlyKnownKeywords().onlyKnownFlags().build(),
            USAGE);

    StopCommand() {
        super("stop", "stop a job (the running one by default) and free its workers");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "", "Workers finish their current step, then end; the job keeps"
                + " what it trained so far.", "Examples:", "  %dml stop",
                "  %dml stop fraud-1-3fa2c1",
                "A RUN of %dml runs (a job detached by --detach) is asked to stop through the run"
                        + " store.");
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        Map<String, List<String>> parsed = args.parse(words);
        Jobs jobs = context.session().jobs();
        List<String> named = parsed.get("job");
        if (!named.isEmpty() && !jobs.has(named.get(0)) && DetachedJobs.isRunId(named.get(0))) {
            return DetachedJobs.stop(context, named.get(0)); // a recorded run: a detached job
        }
        JobRecord record = named.isEmpty() ? jobs.running().orElseThrow(() ->
                new DmlException("No job is running.", "%dml status lists this session's"
                        + " jobs.")) : jobs.find(named.get(0));
        if (record.isDone()) {
            context.display(Html.text("Job " + record.id() + " has already ended ("
                    + record.state().name().toLowerCase(java.util.Locale.ROOT) + ")."));
            return null;
        }
        record.job().stop();
        record.closeCell();
        context.display(Html.text("Stopped job " + record.id() + " at "
                + record.dashboard().progress() + "; its workers have ended."));
        return null;
    }
}
