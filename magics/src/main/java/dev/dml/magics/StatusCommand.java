package dev.dml.magics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** {@code %dml status}: this session's jobs, their progress and where their workers run. */
final class StatusCommand extends NamedCommand {

    private static final String USAGE = "%dml status";
    private final CommandArgs args = new CommandArgs("status",
            MagicsArgs.builder().onlyKnownKeywords().onlyKnownFlags().build(), USAGE);

    StatusCommand() {
        super("status", "show running and finished jobs, their progress and their workers");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "", "Shows each job of this session: state, progress, loss,"
                + " and its workers as rank@node:pid.", "Example:", "  %dml status");
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        args.parse(words);
        List<JobRecord> jobs = context.session().jobs().all();
        if (jobs.isEmpty()) {
            context.display(Html.text("No jobs yet in this session. Start one with %dml train"
                    + " (%dml help train)."));
            return null;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JobRecord r : jobs) {
            JobRecord.State state = r.state();
            String failure = r.failure();
            rows.add(List.of(r.id(), state.name().toLowerCase(Locale.ROOT)
                            + (failure == null ? "" : ": " + failure),
                    r.dashboard().progress(), elapsed(r.started()), workers(r),
                    r.prepared().description()));
        }
        context.display(Html.table(jobs.size() + " job(s) in this session",
                List.of("job", "state", "progress", "started", "workers (rank@node:pid)",
                        "what"), rows));
        return null;
    }

    private static String workers(JobRecord r) {
        String w = r.job().workers().stream()
                .map(x -> x.rank() + "@" + x.nodeIp() + ":" + x.pid())
                .collect(Collectors.joining(", "));
        return w.isEmpty() ? "(starting)" : w;
    }

    private static String elapsed(Instant since) {
        long s = Duration.between(since, Instant.now()).toSeconds();
        return s < 120 ? s + " s ago" : (s / 60) + " min ago";
    }
}
