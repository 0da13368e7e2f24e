package dev.dml.ray.train.runner;

import dev.dml.ray.train.worker.StepRange;
import java.util.List;

/**
 * The calls that run a job's steps, as the driver sends them. Each covers at most a call's
 * steps, within one epoch, and ends where a listener is due (a checkpoint, a budget). Where the
 * plan allows ({@link StrategyWorkers#sendsAhead}), the next call is sent before the current one's
 * report is handled, so the workers go from one call's steps straight to the next while the
 * driver emits events and runs its listeners: a step then costs the driver nothing. No call is
 * sent ahead across an epoch's end (validation, early stopping) or a listener's due step, and
 * one whose predecessor stopped early or failed is skipped by the workers ({@link
 * StepRange#ahead}).
 */
final class StepCalls {

    /** A call sent: its range, and whether a listener is due at its end. */
    record Call(StepRange range, StrategyWorkers.Sent sent, boolean dueAtEnd) {}

    private final StrategyWorkers plan;
    private final List<DriverListener> listeners;
    private final int stepsPerEpoch;
    private final int reportEvery;
    private final long total;
    /** The step of the newest snapshot the calls asked for; -1 for none yet. */
    private long snapshotAt = -1;
    private Call ahead;

    StepCalls(StrategyWorkers plan, List<DriverListener> listeners, int stepsPerEpoch,
            int reportEvery, long total) {
        this.plan = plan;
        this.listeners = listeners;
        this.stepsPerEpoch = stepsPerEpoch;
        this.reportEvery = reportEvery;
        this.total = total;
    }

    /** Whether a call was sent ahead and not yet taken by {@link #next}. */
    boolean inFlight() {
        return ahead != null;
    }

    /**
     * The call of the steps from {@code step} on: the one sent ahead, or one sent now.
     *
     * @param step the steps completed
     */
    Call next(long step) {
        if (ahead != null) {
            Call c = ahead;
            ahead = null;
            return c;
        }
        return send(step, false);
    }

    /** Sends the call after {@code c} now, where nothing the driver does between can change it. */
    void sendAfter(Call c) {
        long end = c.range().end();
        if (plan.sendsAhead() && !c.dueAtEnd() && end < total && end % stepsPerEpoch != 0) {
            ahead = send(end, true);
        }
    }

    /** Why a listener stops the job at {@code step} (a budget, a deadline), or null. */
    String stopReason(long step) {
        for (DriverListener l : listeners) {
            String why = l.stopReason(step);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    /** Forgets the call sent ahead; the workers skip it. */
    void drop() {
        ahead = null;
    }

    /** After a recovery: nothing in flight, and the next call takes a snapshot. */
    void restart() {
        ahead = null;
        snapshotAt = -1;
    }

    private Call send(long step, boolean sentAhead) {
        int inEpoch = (int) (step % stepsPerEpoch);
        long due = Long.MAX_VALUE;
        for (DriverListener l : listeners) {
            due = Math.min(due, l.stepsUntilDue(step));
        }
        long count = Math.min(Math.min(plan.stepsPerCall(reportEvery), stepsPerEpoch - inEpoch),
                due);
        // in-memory snapshots every few steps (every call of a data-parallel job)
        boolean snapshot = snapshotAt < 0 || step - snapshotAt >= reportEvery;
        StepRange r = new StepRange((int) (step / stepsPerEpoch), inEpoch, (int) count, step,
                snapshot);
        snapshotAt = snapshot ? step : snapshotAt;
        return new Call(r, plan.send(sentAhead ? r.sentAhead() : r), due <= count);
    }
}
