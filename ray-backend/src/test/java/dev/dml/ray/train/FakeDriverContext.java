package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverContext;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** A driver context in the test JVM, for running driver tasks in Ray's LOCAL mode. */
public final class FakeDriverContext implements DriverContext {

    final Map<String, AutoCloseable> resources = new LinkedHashMap<>();
    final List<Object> events = new ArrayList<>();
    private final Consumer<Object> listener;

    /**
     * A context whose events also go to a listener.
     *
     * @param listener gets each event
     */
    public FakeDriverContext(Consumer<Object> listener) {
        this.listener = listener;
    }

    /** A context that keeps its events. */
    public FakeDriverContext() {
        this(e -> { });
    }

    /** The resources still registered. @return them, live */
    public Map<String, AutoCloseable> resources() {
        return resources;
    }

    @Override
    public String address() {
        return "local";
    }

    @Override
    public synchronized <T extends AutoCloseable> T register(String name, T resource) {
        if (resources.containsKey(name)) {
            throw new DmlException("taken: " + name, "");
        }
        resources.put(name, resource);
        return resource;
    }

    @Override
    public synchronized <T> T lookup(String name, Class<T> type) {
        Object r = resources.get(name);
        if (!type.isInstance(r)) {
            throw new DmlException("nothing named " + name, "");
        }
        return type.cast(r);
    }

    @Override
    public void emit(Serializable event) {
        events.add(event);
        listener.accept(event);
    }

    @Override
    public void release(String name) {
        AutoCloseable r;
        synchronized (this) {
            r = resources.remove(name);
        }
        if (r != null) {
            try {
                r.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    <T> List<T> events(Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Object e : events) {
            if (type.isInstance(e)) {
                out.add(type.cast(e));
            }
        }
        return out;
    }
}
