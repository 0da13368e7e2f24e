package dev.dml.kernel.exec;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Values that {@code %dml} binds to notebook variables ({@code --into NAME}). A magic runs
 * inside a cell, while JShell is busy with that cell, so a binding waits here and becomes a
 * variable declaration evaluated right after the cell (or before the next one, for a job that
 * ended in the background).
 */
public final class Bindings {

    private static final Map<String, Object> HANDED_OVER = new ConcurrentHashMap<>();
    private static final AtomicLong KEYS = new AtomicLong();

    private final Map<String, Object> pending = new LinkedHashMap<>();

    public Bindings() {}

    /** Queues {@code name = value} for the next point where JShell is free. */
    public synchronized void bind(String name, Object value) {
        pending.put(name, value);
    }

    /** The declarations to evaluate now, one per queued binding; empties the queue. */
    public synchronized List<String> drain() {
        List<String> snippets = new ArrayList<>();
        for (Map.Entry<String, Object> e : pending.entrySet()) {
            String key = "binding-" + KEYS.incrementAndGet();
            HANDED_OVER.put(key, e.getValue());
            snippets.add(typeOf(e.getValue()) + " " + e.getKey() + " = (" + typeOf(e.getValue())
                    + ") " + Bindings.class.getName() + ".take(\"" + key + "\");");
        }
        pending.clear();
        return snippets;
    }

    /**
     * Hands a queued value to the declaration that binds it; called by that declaration only.
     *
     * @param key the binding's key
     * @return the value
     */
    public static Object take(String key) {
        return HANDED_OVER.remove(key);
    }

    /** The most specific public type of the value that cells can name. */
    private static String typeOf(Object value) {
        for (Class<?> c = value.getClass(); c != null; c = c.getSuperclass()) {
            if (Modifier.isPublic(c.getModifiers()) && c.getCanonicalName() != null) {
                return c.getCanonicalName();
            }
        }
        return "Object";
    }
}
