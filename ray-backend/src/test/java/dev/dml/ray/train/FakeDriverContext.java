package dev.dml.ray.train;

import dev.dml.ray.cluster.DriverResources;
import dev.dml.ray.cluster.ForwardingContext;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A driver context in the test JVM, for running driver tasks in Ray's LOCAL mode: a driver's
 * resources, whose close failures fail the test, and the events a task emitted.
 */
public final class FakeDriverContext extends ForwardingContext {

    public final Map<String, AutoCloseable> resources;
    public final List<Object> events = new ArrayList<>();
    private final Consumer<Object> listener;

    /**
     * A context whose events also go to a listener.
     *
     * @param listener gets each event
     */
    public FakeDriverContext(Consumer<Object> listener) {
        this(new DriverResources("local", (name, e) -> {
            throw new IllegalStateException(e);
        }), listener);
    }

    /** A context that keeps its events. */
    public FakeDriverContext() {
        this(e -> { });
    }

    private FakeDriverContext(DriverResources shared, Consumer<Object> listener) {
        super(shared);
        this.resources = shared.registered();
        this.listener = listener;
    }

    /** The resources still registered. @return them, live */
    public Map<String, AutoCloseable> resources() {
        return resources;
    }

    @Override
    public void emit(Serializable event) {
        events.add(event);
        listener.accept(event);
    }

    public <T> List<T> events(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object e : events) {
            if (type.isInstance(e)) {
                out.add(type.cast(e));
            }
        }
        return out;
    }
}
