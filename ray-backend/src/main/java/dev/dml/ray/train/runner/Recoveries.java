package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's recoveries, in the driver: when workers are lost (a crash, a lost node) or leave on a
 * pre-emption notice, it replaces them on any node with room and restores every worker from the
 * newest state there is: a peer's in-memory snapshot, else the newest checkpoint, else the
 * start. The job then goes on from that step. Losses count against {@code --max-failures};
 * pre-emption notices do not, since a worker that leaves cleanly costs no redone steps.
 */
final class Recoveries {

    private static final Logger LOG = LoggerFactory.getLogger(Recoveries.class);

    /** How long a probed worker may take to answer before it counts as lost. */
    static final Duration PROBE_WAIT = Duration.ofSeconds(10);

    /**
     * How long a recovery goes on starting replacements that die as they start. A node that
     * vanished without a word (a VM gone, no SIGTERM) still holds its placement-group bundles
     * until Ray's health checks declare it dead; a replacement started there dies, and one
     * started after Ray moved the bundle to a live node runs.
     */
    static final Duration REPLACE_WINDOW = Duration.ofSeconds(90);
    private static final Duration REPLACE_PAUSE = Duration.ofSeconds(3);

    /** Where a recovery that has no peer snapshot gets its state. */
    interface Fallback {

        /** Restores every worker from the newest checkpoint; returns its step, or -1. */
        long fromCheckpoint();

        /** Where {@link #fromCheckpoint()} restored from, for the event. */
        String checkpointName();

        /** Builds every worker's model afresh, as at the job's start. */
        void fromStart();
    }

    private final String job;
    private final int maxFailures;
    private final Fallback fallback;
    private final List<Recovery> done = new ArrayList<>();
    private int failures;

    Recoveries(String job, int maxFailures, Fallback fallback) {
        this.job = job;
        this.maxFailures = maxFailures;
        this.fallback = fallback;
    }

    /**
     * Recovers after a call failed, when workers were lost.
     *
     * @param failure what the call threw; rethrown when no worker was lost (a fault that a
     *     retry would repeat), or when the job has used up its {@code --max-failures}
     * @param completed the steps the driver saw complete
     * @param who the workers before the loss, by rank
     * @return the step to go on from
     */
    long afterFailure(RuntimeException failure, long completed, List<WorkerInfo> who,
            StrategyWorkers plan, JobControl control, DriverContext context) {
        if (control.stopRequested()) {
            throw failure;
        }
        String why = failure instanceof DmlException d ? d.what() : String.valueOf(failure);
        List<Integer> lost = plan.probe(why);
        if (lost.isEmpty()) {
            throw failure;
        }
        String names = describe(lost, who);
        if (++failures > maxFailures) {
            String whyTemplate = failure instanceof DmlException d ? d.whatTemplate()
                    : DmlException.literal(why);
            throw new DmlException(names + " lost: the job had already recovered from "
                    + maxFailures + " lost workers, its {max-failures}. " + whyTemplate,
                    "Raise {max-failures}, or see why workers die in their logs"
                    + " (java-worker-*.log under the Ray session's logs).", failure);
        }
        return recover(lost, names + " lost: " + why, false, completed, who.size(), plan,
                control, context);
    }

    /**
     * Recovers after workers got a pre-emption notice and every worker stopped at the same
     * step: their state goes into their peers' snapshots, and they are replaced.
     *
     * @return the step to go on from
     */
    long afterNotice(List<Integer> leaving, long completed, List<WorkerInfo> who,
            StrategyWorkers plan, JobControl control, DriverContext context) {
        String names = describe(leaving, who);
        plan.handOver(leaving, completed);
        return recover(leaving, names + " got a pre-emption notice (SIGTERM)", true, completed,
                who.size(), plan, control, context);
    }

    private long recover(List<Integer> lost, String cause, boolean preemption, long completed,
            int before, StrategyWorkers plan, JobControl control, DriverContext context) {
        long t0 = System.nanoTime();
        LOG.warn("{}: {}; replacing {} worker(s)", job, cause, lost.size());
        List<WorkerInfo> now = replace(lost, plan, control);
        if (now.size() < before) {
            context.emit(new Resize(completed, before, now.size(), "no room to replace "
                    + lost.size() + " lost worker(s)", now));
        }
        long reached = Math.max(completed, plan.progress());
        long step = plan.restoreFromPeers(lost);
        String from = "a peer's snapshot";
        if (step < 0) {
            step = fallback.fromCheckpoint();
            from = fallback.checkpointName();
        }
        if (step < 0) {
            fallback.fromStart();
            step = 0;
            from = "the start (no snapshot or checkpoint)";
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Recovery r = new Recovery(completed, step, Math.max(0, reached - step), seconds, cause,
                from, preemption, now);
        LOG.warn("{}: recovered in {} s from {} at step {}; {} step(s) redone", job,
                String.format("%.2f", seconds), from, step, r.stepsRedone());
        done.add(r);
        context.emit(r);
        return step;
    }

    /** Starts the replacements, again while they die as they start, for {@link #REPLACE_WINDOW}. */
    private List<WorkerInfo> replace(List<Integer> lost, StrategyWorkers plan, JobControl control) {
        long deadline = System.nanoTime() + REPLACE_WINDOW.toNanos();
        while (true) {
            try {
                return plan.replace(lost, control);
            } catch (RuntimeException e) {
                if (control.stopRequested() || System.nanoTime() > deadline) {
                    throw e;
                }
                LOG.warn("{}: a replacement did not start ({}); trying again in {} s, once Ray"
                        + " has moved the lost node's slots", job, e.toString(),
                        REPLACE_PAUSE.toSeconds());
                try {
                    Thread.sleep(REPLACE_PAUSE.toMillis());
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** The recoveries so far, in order. */
    List<Recovery> recoveries() {
        return List.copyOf(done);
    }

    private static String describe(List<Integer> workers, List<WorkerInfo> who) {
        return workers.stream().map(i -> i < who.size()
                ? "Rank " + i + " (pid " + who.get(i).pid() + " on " + who.get(i).host() + ")"
                : "Rank " + i).collect(Collectors.joining(", "));
    }
}
