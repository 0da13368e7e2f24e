package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.tune.Asha;
import dev.dml.tune.Sweep;
import dev.dml.tune.SweepPlan;
import dev.dml.tune.Trial;
import dev.dml.tune.TrialLauncher;
import dev.dml.tune.TrialStatus;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * {@code %dml tune}: a sweep from one cell. Each trial is an ordinary job with its own workers,
 * recorded in the run store with the sweep's id; {@code --concurrent} of them run at once.
 * With {@code --scheduler asha} a trial whose metric falls below a rung's cutoff is stopped
 * through its job's stop path. The cell shows one chart with every trial's curve and a ranked
 * table, updated as the trials report, and binds the best trial's result to {@code --into}
 * (else {@code best}). An interrupt stops every running trial before the cell ends.
 */
final class TuneCommand extends NamedCommand {

    static final String USAGE = "%dml tune TABLE|FILE --label COLUMN --OPTION SPACE ..."
            + " [--trials N] [--search grid|random] [--scheduler asha|none] [--metric METRIC]"
            + " [--concurrent K] [train options]";
    /** The chart and table are redrawn at most this often. */
    private static final Duration REDRAW = Duration.ofMillis(500);

    TuneCommand() {
        super("tune",
                "sweep options over trials run a few at a time, stopping weak ones early (ASHA)");
    }

    @Override
    public List<String> usage() {
        List<String> lines = TrainGrammar.helpLines(List.of(USAGE, "",
                "A space goes where the option's value would: LOW..HIGH (add :log to sample on"
                        + " a log scale) or values A|B|C.",
                "  %dml tune fashion --label y --validation 0.2 --lr 1e-4..1e-2:log"
                        + " --hidden 32,32|64,64|128 --batch-size 64|256 --trials 12"
                        + " --search random --scheduler asha --metric val_accuracy"
                        + " --concurrent 2 --epochs 9",
                "Every other option of %dml train passes to each trial; --budget and"
                        + " --deadline hold for the whole sweep.",
                "The best trial's result is bound to --into (default: best); its runs are"
                        + " listed by %dml runs --where 'sweep = ID'.", "", "Options:"),
                TuneOptions.ALL);
        lines.add("  (and every option of %dml train; %dml help train lists them)");
        return lines;
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        TuneRequest request = TuneRequest.parse(args, body);
        return Failures.showing(request.fixed().get(TrainOptions.DEBUG),
                () -> tune(context, request));
    }

    private Object tune(CommandContext context, TuneRequest request) {
        DmlSession session = context.session();
        session.jobs().running().ifPresent(r -> {
            throw new DmlException("Job " + r.id() + " is still running, and a session runs"
                    + " one job at a time.", "Wait for it, or stop it with %dml stop "
                    + r.id() + "; then run the sweep.");
        });
        OptionValues fixed = request.fixed();
        String sweepId = SweepPlan.newId();
        List<Trial> trials = request.trials(sweepId);
        DmlBackend backend = session.backend();
        // the first trial is prepared now: bad data or columns fail before anything runs
        PreparedJob first = backend.prepare(request.request(trials.get(0)));
        SweepPlan plan = request.plan();
        Asha asha = plan.asha(trials);
        Sweep sweep = plan.sweep(sweepId, trials, asha, plan.concurrent(trials,
                () -> clusterCpus(backend)), fixed.get(TrainOptions.BUDGET),
                fixed.get(TrainOptions.DEADLINE));
        String into = request.into();
        Consumer<DisplayData> chart = context.replacing("dml-sweep-chart-");
        Consumer<DisplayData> table = context.replacing("dml-sweep-table-");
        long[] drawn = {0};
        Runnable redraw = () -> {
            chart.accept(SweepView.chart(sweep));
            table.accept(SweepView.table(sweep, request.space()));
            drawn[0] = System.nanoTime();
        };
        redraw.run();
        TrialLauncher launcher = (trial, progress) -> {
            PreparedJob job = trial.number() == 1 ? first
                    : backend.prepare(request.request(trial));
            return running(job.start(progress));
        };
        try {
            sweep.run(launcher, () -> {
                if (System.nanoTime() - drawn[0] >= REDRAW.toNanos()) {
                    redraw.run();
                }
            });
        } catch (InterruptedException interrupt) {
            redraw.run();
            throw new DmlException("Sweep " + sweepId + " was interrupted: its running trials"
                    + " were stopped and their workers have ended.", "Run the cell again to"
                    + " sweep again; %dml runs --where 'sweep = " + sweepId + "' lists the"
                    + " trials recorded.");
        }
        redraw.run();
        if (sweep.limit() != null) {
            context.display(Html.text(Vocabulary.NOTEBOOK.render("The sweep stopped before"
                    + " its last trial: " + sweep.limit() + ".")));
        }
        for (Trial t : trials) {
            if (t.status() == TrialStatus.FAILED) {
                context.display(Html.text("Trial " + t.id() + " (" + t.settings()
                        + ") failed: " + t.failure()));
            }
        }
        sweep.best().ifPresent(b -> backend.bind(into, b.result()));
        context.display(Html.text(SweepView.summary(sweep, into) + " %dml runs --where"
                + " 'sweep = " + sweepId + "' lists its runs."));
        return null;
    }

    /** The CPUs of the cluster's live nodes; this machine's while no cluster is open. */
    private static double clusterCpus(DmlBackend backend) {
        List<DmlBackend.ClusterView.Node> nodes = backend.cluster().nodes();
        return nodes.isEmpty() ? Runtime.getRuntime().availableProcessors()
                : nodes.stream().filter(DmlBackend.ClusterView.Node::alive)
                        .mapToDouble(DmlBackend.ClusterView.Node::cpus).sum();
    }

    private static TrialLauncher.Running running(RunningJob job) {
        return TrialLauncher.Running.of(job::awaitEnd, job::stop, () -> job.outcome().result(),
                () -> job.outcome().stopped());
    }
}
