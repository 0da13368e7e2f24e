package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.options.Option;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * What {@code %dml plan} and {@code %dml scale} share: both time jobs on the session's
 * cluster, so no other job may run beside them, and both run their jobs on a thread of their
 * own, so that a kernel interrupt stops the job under way (its workers end) before the cell
 * ends.
 */
final class Sizing {

    /** How long an interrupted job has to stop: a job kills its workers after 30 s. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(120);

    private Sizing() {}

    /**
     * Refuses the first of {@code options} the request sets: the command does not take it.
     *
     * @param request the cell's request
     * @param options the options the command refuses
     * @param command the command, as the user typed it after {@code %dml}
     * @param why why it does not take them
     * @param fix what to do instead, given the option's flag
     */
    static void refuseOptions(TrainRequest request, List<Option<?>> options, String command,
            String why, UnaryOperator<String> fix) {
        for (Option<?> o : options) {
            if (request.options().isSet(o)) {
                throw new DmlException("%dml " + command + " does not take " + o.flag() + ": "
                        + why + ".", fix.apply(o.flag()));
            }
        }
    }

    /**
     * Times the request's job on the session's cluster: refuses while a job runs, runs the
     * work stoppably with the cell's status line, shows its result and binds it to {@code
     * --into}.
     *
     * @param context the cell
     * @param command the command, for the messages and the thread's name
     * @param request the cell's request
     * @param work what to run on the backend, reporting progress on the status line
     * @param show what to display of the result
     * @param <T> the result
     * @return the result
     */
    static <T> T measure(CommandContext context, String command, TrainRequest request,
            BiFunction<DmlBackend, Consumer<String>, T> work, Consumer<T> show) {
        DmlSession session = context.session();
        refuseWhileAJobRuns(session, command);
        DmlBackend backend = session.backend();
        Consumer<String> status = context.statusLine();
        T result = stoppably(command, () -> work.apply(backend, status));
        show.accept(result);
        if (request.into() != null) {
            backend.bind(request.into(), result);
        }
        return result;
    }

    /** Refuses while a job of the session runs: its workers would distort the timings. */
    static void refuseWhileAJobRuns(DmlSession session, String command) {
        session.jobs().running().ifPresent(r -> {
            throw new DmlException("Job " + r.id() + " is running, and its workers would slow"
                    + " the timed runs of %dml " + command + ".", "Wait for it, or stop it"
                    + " with %dml stop " + r.id() + ", then run %dml " + command + ".");
        });
    }

    /**
     * Runs the work on its own thread and waits for it; on an interrupt, interrupts the work
     * (a job stops when the thread waiting for it is interrupted) and waits, at most {@link
     * #STOP_LIMIT}, for its end.
     *
     * @param command the command, for the thread's name and the message
     * @param work what to run
     * @param <T> its result
     * @return the result
     * @throws DmlException one line after an interrupt, saying whether a worker may still run
     */
    static <T> T stoppably(String command, Supplier<T> work) {
        FutureTask<T> task = new FutureTask<>(work::get);
        Thread t = new Thread(task, "dml-" + command);
        t.setDaemon(true);
        t.start();
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re
                    : new IllegalStateException(e.getCause());
        } catch (InterruptedException interrupt) {
            t.interrupt();
            try {
                t.join(STOP_LIMIT.toMillis());
            } catch (InterruptedException again) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                throw new DmlException("%dml " + command + " was interrupted, and its job did not"
                        + " stop within " + STOP_LIMIT.toSeconds() + " s.",
                        "Check %dml status; %dml stop ends what is left.");
            }
            throw new DmlException("%dml " + command + " was interrupted; its job was stopped"
                    + " and no worker runs.", "Run the cell again.");
        }
    }
}
