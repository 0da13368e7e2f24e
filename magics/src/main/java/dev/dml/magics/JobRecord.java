package dev.dml.magics;

import dev.dml.magics.live.LiveCell;
import dev.dml.magics.live.LiveDashboard;
import java.time.Duration;
import java.time.Instant;

/** A job this session started: the backend's handle, its dashboard and its live cell. */
final class JobRecord {

    /** A job's state as {@code %dml status} shows it. */
    enum State { RUNNING, FINISHED, STOPPED, FAILED }

    private final RunningJob job;
    private final PreparedJob prepared;
    private final LiveDashboard dashboard;
    private final Instant started = Instant.now();
    private LiveCell cell;

    JobRecord(RunningJob job, PreparedJob prepared, LiveDashboard dashboard, LiveCell cell) {
        this.job = job;
        this.prepared = prepared;
        this.dashboard = dashboard;
        this.cell = cell;
    }

    String id() {
        return job.id();
    }

    RunningJob job() {
        return job;
    }

    PreparedJob prepared() {
        return prepared;
    }

    LiveDashboard dashboard() {
        return dashboard;
    }

    Instant started() {
        return started;
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
    synchronized void closeCell() {
        if (cell != null) {
            cell.close();
            cell = null;
        }
    }
}
