package dev.dml.ray.train.runner;

import dev.dml.events.JobEvent;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.ForwardingContext;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * One job's view of its driver: every {@link JobEvent} it emits goes to the kernel first, then
 * to the job's {@link DriverListener}s, so both sides hear the same events in the same order
 * (an event a listener emits while hearing one follows it). The rest is the driver's context.
 */
final class JobEvents extends ForwardingContext {

    private final List<DriverListener> listeners = new ArrayList<>();

    JobEvents(DriverContext driver) {
        super(driver);
    }

    /** Adds a listener; it hears the events emitted from now on. */
    <T extends DriverListener> T add(T listener) {
        listeners.add(listener);
        return listener;
    }

    /** The listeners, in the order they were added; the list grows with {@link #add}. */
    List<DriverListener> listeners() {
        return listeners;
    }

    /** Whether a listener ended the job before its last epoch. */
    boolean finishedEarly() {
        return listeners.stream().anyMatch(DriverListener::finishedEarly);
    }

    @Override
    public void emit(Serializable event) {
        driver().emit(event);
        if (event instanceof JobEvent e) {
            for (int i = 0; i < listeners.size(); i++) {
                listeners.get(i).deliver(e);
            }
        }
    }
}
