package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.cost.JobPlan;
import java.util.Iterator;
import java.util.ServiceLoader;
import org.dflib.jjava.jupyter.kernel.BaseKernel;

/**
 * One kernel's {@code %dml} state: its jobs and the backend that runs them. The backend opens on
 * first use, so {@code %dml help} never starts anything; {@link #close()} stops the jobs and
 * closes the backend (and with it any cluster the session started).
 */
final class DmlSession implements AutoCloseable {

    private final BaseKernel kernel;
    private final Jobs jobs = new Jobs();
    private DmlBackend backend;
    private PlannedJob lastPlan;
    private boolean closed;

    DmlSession(BaseKernel kernel) {
        this.kernel = kernel;
    }

    Jobs jobs() {
        return jobs;
    }

    /** A plan and the job it was made for, kept for {@code %dml train --plan}. */
    record PlannedJob(TrainRequest request, JobPlan plan) {}

    synchronized void keepPlan(PlannedJob planned) {
        lastPlan = planned;
    }

    /** The session's last plan. */
    synchronized PlannedJob lastPlan() {
        if (lastPlan == null) {
            throw new DmlException("{plan} runs a row of the session's last %dml plan, and this"
                    + " session has made none.", "Run %dml plan with the job's data and options"
                    + " first, e.g. %dml plan fraud {label=is_fraud} {epochs=5}.");
        }
        return lastPlan;
    }

    /** The backend, opened on first use. */
    synchronized DmlBackend backend() {
        if (closed) {
            throw new DmlException("This kernel's dml session is closed.",
                    "Restart the kernel.");
        }
        if (backend == null) {
            backend = find(kernel).open(kernel);
        }
        return backend;
    }

    /** True when a backend was opened (a cluster may be running). */
    synchronized boolean isOpen() {
        return backend != null;
    }

    private static DmlBackend.Factory find(BaseKernel kernel) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Iterator<DmlBackend.Factory> found = ServiceLoader.load(DmlBackend.Factory.class,
                loader != null ? loader : kernel.getClass().getClassLoader()).iterator();
        if (!found.hasNext()) {
            found = ServiceLoader.load(DmlBackend.Factory.class,
                    DmlSession.class.getClassLoader()).iterator();
        }
        if (!found.hasNext()) {
            throw new DmlException("No dml backend is on this kernel's class path, so %dml can"
                    + " not run jobs here.", "Use the 'Java (dml)' kernel, or add the dml-kernel"
                    + " jar and its dependencies with %jars.");
        }
        return found.next();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            jobs.stopAll();
        } finally {
            if (backend != null) {
                backend.close();
            }
        }
    }
}
