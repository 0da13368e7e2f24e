package dev.dml.ray.train.runner;

import dev.dml.Closeables;
import dev.dml.ray.train.recovery.JobPlacement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running job's handle in the driver, registered in the {@link
 * dev.dml.ray.cluster.DriverContext} under the job's name so that a later task can stop it.
 * Closing it kills the job's actors and frees their placement group.
 */
final class JobControl implements AutoCloseable {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicBoolean killed = new AtomicBoolean();
    private final List<AutoCloseable> groups = new CopyOnWriteArrayList<>();
    private volatile JobPlacement placement;

    /** Adds a job's actor group (or its parameter servers), killed by {@link #close()}. */
    void attach(AutoCloseable g) {
        groups.add(g);
        if (killed.get()) {
            Closeables.closeAll(g);
        }
    }

    /** Hands over the job's placement group, removed by {@link #close()} after the actors. */
    void attach(JobPlacement p) {
        placement = p;
    }

    void requestStop() {
        stop.set(true);
    }

    boolean stopRequested() {
        return stop.get();
    }

    boolean killed() {
        return killed.get();
    }

    @Override
    public void close() {
        killed.set(true);
        stop.set(true);
        List<AutoCloseable> all = new ArrayList<>(groups);
        all.add(placement);
        Closeables.closeAll(all);
    }
}
