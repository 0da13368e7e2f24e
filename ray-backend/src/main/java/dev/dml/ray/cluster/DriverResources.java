package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A driver's named resources, closed in reverse order at the end: what a {@link DriverContext}
 * holds for every task of the driver. It has no call to tag events with, so it refuses them: a
 * task's context (a {@link ForwardingContext} over it) sends them.
 */
public final class DriverResources implements DriverContext {
    private final String address;
    private final Map<String, AutoCloseable> byName = new LinkedHashMap<>();
    private final BiConsumer<String, Exception> closeFailed;

    /**
     * A driver's resources, whose close failures go to the driver's log (its standard error).
     *
     * @param address the cluster's address, as {@link #address()} returns it
     */
    public DriverResources(String address) {
        this(address, (name, e) -> System.err.println("dml driver: closing '" + name
                + "' failed: " + e));
    }

    /**
     * @param address the cluster's address, as {@link #address()} returns it
     * @param closeFailed what a resource's failure to close does, given its name
     */
    public DriverResources(String address, BiConsumer<String, Exception> closeFailed) {
        this.address = address;
        this.closeFailed = closeFailed;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public synchronized <T extends AutoCloseable> T register(String name, T resource) {
        if (byName.containsKey(name)) {
            throw new DmlException(
                    "A resource named '" + name + "' is already registered in this driver.",
                    "Release it first, or pick another name.");
        }
        byName.put(name, resource);
        return resource;
    }

    @Override
    public synchronized <T> T lookup(String name, Class<T> type) {
        AutoCloseable r = byName.get(name);
        if (!type.isInstance(r)) {
            throw new DmlException(
                    "No " + type.getSimpleName() + " named '" + name + "' in this driver.",
                    "Register it first; registered: " + byName.keySet() + ".");
        }
        return type.cast(r);
    }

    @Override
    public void release(String name) {
        AutoCloseable r;
        synchronized (this) {
            r = byName.remove(name);
        }
        closeQuietly(name, r);
    }

    @Override
    public void emit(java.io.Serializable event) {
        throw new IllegalStateException("an event belongs to a call: emit it on its context");
    }

    /** @return the resources registered now, by name, in their order (a live view) */
    public Map<String, AutoCloseable> registered() {
        return Collections.unmodifiableMap(byName);
    }

    /** Closes every resource, the last registered first; a failure goes where it was told. */
    public void closeAll() {
        List<Map.Entry<String, AutoCloseable>> all;
        synchronized (this) {
            all = new ArrayList<>(byName.entrySet());
            byName.clear();
        }
        Collections.reverse(all);
        for (Map.Entry<String, AutoCloseable> e : all) {
            closeQuietly(e.getKey(), e.getValue());
        }
    }

    private void closeQuietly(String name, AutoCloseable r) {
        if (r == null) {
            return;
        }
        try {
            r.close();
        } catch (Exception e) {
            closeFailed.accept(name, e);
        }
    }
}
