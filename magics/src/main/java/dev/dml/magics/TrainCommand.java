package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.magics.live.JobSummary;
import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.magics.live.SummaryTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * {@code %dml train}: resolves the request, starts the job, draws its live plot in the running
 * cell, and when it ends shows a summary and binds the result to {@code --into}.
 *
 * <p>A kernel interrupt reaches the waiting cell thread (as an interrupt, or on Java 17 as
 * {@code ThreadDeath}); the job is then stopped on a thread of its own, so a second interrupt
 * cannot leave workers running, and the cell ends with one line saying so.
 */
final class TrainCommand implements DmlCommand {

    /** Live plot updates are at most this frequent: a few a second is smooth and cheap. */
    static final Duration FRAME_INTERVAL = Duration.ofMillis(250);

    private static final Duration POLL = Duration.ofMillis(500);

    @Override
    public String name() {
        return "train";
    }

    @Override
    public String summary() {
        return "train a model on a table across the cluster's workers, with live plots";
    }

    @Override
    public List<String> usage() {
        List<String> lines = new ArrayList<>(List.of(TrainGrammar.usage(), "",
                "Line form:",
                "  %dml train fraud --label is_fraud --hidden 64,32 --workers 2 --epochs 3"
                        + " --into model",
                "Cell form (one 'key: value' per line):",
                "  %%dml train", "  table: fraud", "  label: is_fraud", "  workers: 2",
                "  into: model",
                "TABLE is a Tablesaw Table variable; FILE a .csv or Arrow IPC (.arrow) file.",
                "The result (model.predict(table), model.metrics()) is bound to --into.", "",
                "Options:"));
        lines.addAll(TrainGrammar.optionLines(TrainOptions.ALL));
        return lines;
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        TrainRequest request = TrainGrammar.parse(args, body);
        try {
            return train(context, request);
        } catch (RuntimeException e) {
            throw Failures.shown(e, request.debug());
        }
    }

    private Object train(CommandContext context, TrainRequest request) {
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
        } catch (InterruptedException | ThreadDeath interrupt) {
            String[] progress = new String[1];
            finishStopping(job.id(), () -> {
                job.stop();
                record.closeCell();
                progress[0] = record.dashboard().progress();
            });
            throw new DmlException("Training job " + job.id() + " was interrupted and stopped at "
                    + progress[0] + "; its workers have ended.",
                    "Run the cell again to restart it (with --checkpoint-dir, add --resume to"
                            + " continue where it stopped).");
        }
        return finish(context, record, backend);
    }

    /**
     * Starts the job on a thread of its own: an interrupt that arrives while the cluster opens
     * or the job is submitted waits for the start to end, stops what it started, and ends the
     * cell with one line, so no job runs on unseen.
     */
    @SuppressWarnings("removal")
    static RunningJob startStoppably(PreparedJob prepared, LiveDashboard dashboard,
            LiveCell cell) {
        FutureTask<RunningJob> start = new FutureTask<>(() -> prepared.start(dashboard));
        Thread starter = new Thread(start, "dml-start-" + prepared.name());
        starter.setDaemon(true);
        starter.start();
        try {
            return start.get();
        } catch (ExecutionException e) {
            closeQuietly(cell);
            throw e.getCause() instanceof RuntimeException re ? re
                    : new IllegalStateException(e.getCause());
        } catch (InterruptedException | ThreadDeath interrupt) {
            RunningJob job = null;
            boolean ended = false;
            while (!ended) {
                try {
                    Thread.interrupted();
                    job = start.get();
                    ended = true;
                } catch (InterruptedException | ThreadDeath again) {
                    // the start is under way; wait for it to end
                } catch (ExecutionException failed) {
                    ended = true; // nothing started
                }
            }
            RunningJob started = job;
            finishStopping(prepared.name(), () -> {
                if (started != null) {
                    started.stop();
                }
                closeQuietly(cell);
            });
            throw new DmlException("Training was interrupted and stopped while its job started;"
                    + " no worker runs.", "Run the cell again to start it.");
        }
    }

    private static void closeQuietly(LiveCell cell) {
        if (cell != null) {
            cell.close();
        }
    }

    /**
     * Runs what an interrupted cell must still do (stop the job, close its live plot) on a
     * thread of its own and waits for it. The kernel follows an interrupt with {@code
     * Thread.stop} a second later on Java 17, and that must not land half-way through the
     * clean-up: it would leave workers running or replace the line saying what stopped.
     */
    @SuppressWarnings("removal")
    static void finishStopping(String name, Runnable cleanUp) {
        Thread stopper = new Thread(cleanUp, "dml-stop-" + name);
        stopper.setDaemon(true);
        stopper.start();
        boolean done = false;
        while (!done) {
            try {
                Thread.interrupted();
                stopper.join();
                done = true;
            } catch (InterruptedException | ThreadDeath again) {
                // the clean-up is under way; keep waiting for it
            }
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
