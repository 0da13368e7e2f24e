package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.magics.live.JobSummary;
import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.magics.live.SummaryTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code %dml train}: resolves the request, starts the job, draws its live plot in the running
 * cell, and when it ends shows a summary and binds the result to {@code --into}.
 *
 * <p>A kernel interrupt reaches the waiting cell thread; the cell then stops the job (its
 * workers end) and ends with one line saying so. The command runs as cooperative code ({@link
 * dev.dml.CellThread}), so the kernel waits for that clean-up instead of cutting it short.
 */
final class TrainCommand extends NamedCommand {

    /** Live plot updates are at most this frequent: a few a second is smooth and cheap. */
    static final Duration FRAME_INTERVAL = Duration.ofMillis(250);

    private static final Duration POLL = Duration.ofMillis(500);
    /**
     * How long an interrupted start may take to end before the cell gives up waiting: opening a
     * cluster and placing the workers is bounded well below this.
     */
    static final Duration START_LIMIT = Duration.ofSeconds(120);

    TrainCommand() {
        super("train", "train a model on a table across the cluster's workers, with live plots");
    }

    @Override
    public List<String> usage() {
        return TrainGrammar.helpLines(List.of(TrainGrammar.usage(), "",
                "Line form:",
                "  %dml train fraud --label is_fraud --hidden 64,32 --workers 2 --epochs 3"
                        + " --into model",
                "Cell form (one 'key: value' per line):",
                "  %%dml train", "  table: fraud", "  label: is_fraud", "  workers: 2",
                "  into: model",
                "TABLE is a Tablesaw Table variable; FILE a .csv or Arrow IPC (.arrow) file.",
                "The result (model.predict(table), model.metrics()) is bound to --into.", "",
                "Options:"), TrainOptions.ALL);
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        TrainRequest request = TrainGrammar.parse(args, body);
        return Failures.showing(request.debug(), () -> train(context, request));
    }

    private Object train(CommandContext context, TrainRequest request) {
        if (request.get(TrainOptions.DETACH)) {
            return DetachedJobs.detach(context, request);
        }
        DmlSession session = context.session();
        session.jobs().running().ifPresent(r -> {
            throw new DmlException("Job " + r.id() + " is still running, and a session runs"
                    + " one job at a time.", "Wait for it, or stop it with %dml stop "
                    + r.id() + "; %dml status shows its progress.");
        });
        PlannedTrain.Chosen chosen = PlannedTrain.resolve(session, request);
        request = chosen.request();
        DmlBackend backend = session.backend();
        PreparedJob prepared = backend.prepare(request);
        if (chosen.row() != null) {
            context.display(Html.text(chosen.line()));
        }
        LiveDashboard dashboard = new LiveDashboard(prepared.name(), prepared.epochs(),
                prepared.totalSteps());
        LiveCell cell = request.plots()
                ? new LiveCell(dashboard, context.displaySink(), FRAME_INTERVAL) : null;
        RunningJob job = startStoppably(prepared, dashboard, cell);
        JobRecord record = new JobRecord(job, prepared, dashboard, cell);
        try {
            session.jobs().add(record);
            if (request.background()) {
                finishInBackground(record, backend);
                context.display(Html.text("Job " + job.id() + " runs in the background ("
                        + prepared.description() + "). %dml status shows it; %dml stop "
                        + job.id() + " stops it."));
                return null;
            }
            while (!job.awaitEnd(POLL)) {
                // the live cell draws on its own thread
            }
        } catch (InterruptedException interrupt) {
            try {
                job.stop();
            } finally {
                record.closeCell();
            }
            throw new DmlException("Training job " + job.id() + " was interrupted and stopped at "
                    + record.dashboard().progress() + "; its workers have ended.",
                    "Run the cell again to restart it (with --checkpoint-dir, add --resume to"
                            + " continue where it stopped).");
        }
        return finish(context, record, backend);
    }

    /**
     * Starts the job on a thread of its own: an interrupt that arrives while the cluster opens
     * or the job is submitted lets the start end, stops what it started, and ends the cell with
     * one line, so no job runs on unseen.
     */
    static RunningJob startStoppably(PreparedJob prepared, LiveDashboard dashboard,
            LiveCell cell) {
        CompletableFuture<RunningJob> start = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                start.complete(prepared.start(dashboard));
            } catch (Throwable t) {
                start.completeExceptionally(t);
            }
        }, "dml-start-" + prepared.name());
        starter.setDaemon(true);
        starter.start();
        try {
            return start.get();
        } catch (ExecutionException e) {
            closeQuietly(cell);
            throw e.getCause() instanceof RuntimeException re ? re
                    : new IllegalStateException(e.getCause());
        } catch (InterruptedException interrupt) {
            // whenever the start ends, what it started stops
            CompletableFuture<Void> stopped = start.thenAccept(RunningJob::stop);
            try {
                stopped.get(START_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException nothingStarted) {
                // the start failed: no worker runs
            } catch (TimeoutException | InterruptedException slow) {
                if (slow instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                throw new DmlException("Training was interrupted while its job started, and the"
                        + " start did not end within " + START_LIMIT.toSeconds() + " s; the job"
                        + " is stopped as soon as it has started.",
                        "Check %dml status in a while; %dml stop ends what is left.");
            } finally {
                closeQuietly(cell);
            }
            throw new DmlException("Training was interrupted and stopped while its job started;"
                    + " no worker runs.", "Run the cell again to start it.");
        }
    }

    private static void closeQuietly(LiveCell cell) {
        if (cell != null) {
            cell.close();
        }
    }

    private static Object finish(CommandContext context, JobRecord record, DmlBackend backend) {
        record.closeCell();
        // what the job said besides its plot, one line each, also after a failure and with
        // --no-plots: a --resume that found nothing, a checkpoint not written
        record.dashboard().notices().forEach(n -> context.display(Html.text(n)));
        RunningJob.JobOutcome outcome = record.job().outcome();
        JobSummary summary = record.dashboard().summary(record.id(), outcome.stopped(),
                outcome.wallSeconds());
        context.display(Html.data(SummaryTable.text(summary), SummaryTable.html(summary)));
        String into = record.prepared().request().into();
        if (into != null && outcome.result() != null) {
            backend.bind(into, outcome.result());
            return null;
        }
        return outcome.result();
    }

    /** A background job's end: its last frame, and its result bound for the next cell. */
    private static void finishInBackground(JobRecord record, DmlBackend backend) {
        Thread t = new Thread(() -> {
            try {
                while (!record.job().awaitEnd(POLL)) {
                    // wait
                }
                record.closeCell();
                String into = record.prepared().request().into();
                RunningJob.JobOutcome outcome = record.job().outcome();
                if (into != null && outcome.result() != null) {
                    backend.bind(into, outcome.result());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException failed) {
                // %dml status shows the failure
                record.closeCell();
            }
        }, "dml-job-" + record.id());
        t.setDaemon(true);
        t.start();
    }
}
