package dev.dml.magics;

import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import java.time.Duration;
import java.time.Instant;

/**
 * A job this session started: the backend's handle, its dashboard and its live cell.
 *
 * @param job the backend's handle
 * @param prepared what was started
 * @param dashboard the job's progress, as the cell and {@code %dml status} show it
 * @param cell the live cell, or null when the cell plots nothing
 * @param started when it started
 */
record JobRecord(RunningJob job, PreparedJob prepared, LiveDashboard dashboard, LiveCell cell,
        Instant started) {

    /** A job's state as {@code %dml status} shows it. */
    enum State { RUNNING, FINISHED, STOPPED, FAILED }

    /** A job started now. */
    JobRecord(RunningJob job, PreparedJob prepared, LiveDashboard dashboard, LiveCell cell) {
        this(job, prepared, dashboard, cell, Instant.now());
    }

    String id() {
        return job.id();
    }

    boolean isDone() {
        try {
            return job.awaitEnd(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    State state() {
        if (!isDone()) {
            return State.RUNNING;
        }
        try {
            return job.outcome().stopped() ? State.STOPPED : State.FINISHED;
        } catch (RuntimeException e) {
            return State.FAILED;
        }
    }

    /** Why the job failed, in its first line, or null. */
    String failure() {
        if (!isDone()) {
            return null;
        }
        try {
            job.outcome();
            return null;
        } catch (RuntimeException e) {
            String m = String.valueOf(e.getMessage());
            return m.lines().findFirst().orElse(m);
        }
    }

    /** Publishes the last frame and stops redrawing; safe to call twice. */
    void closeCell() {
        if (cell != null) {
            cell.close();
        }
    }
}
