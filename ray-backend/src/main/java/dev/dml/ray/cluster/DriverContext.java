package dev.dml.ray.cluster;

/**
 * What a {@link DriverTask} sees of its driver process besides the Ray API: the cluster
 * address and named resources that outlive one task (an actor group created by one task
 * and used by the next).
 *
 * <p>The context owns what is registered: it closes each resource on {@link #release} or, in
 * reverse order of registration, when the driver process ends.
 */
public interface DriverContext {

    /**
     * Returns the address of the cluster this driver is attached to.
     *
     * @return {@code host:port}, or {@code local} in Ray's LOCAL mode
     */
    String address();

    /**
     * Hands a resource to the driver, under a name unique in this driver.
     *
     * @param name the name later tasks use
     * @param resource the resource; the context owns it from now on
     * @param <T> the resource type
     * @return {@code resource}
     * @throws dev.dml.DmlException when the name is taken
     */
    <T extends AutoCloseable> T register(String name, T resource);

    /**
     * Returns a registered resource, borrowed: do not close it, {@link #release} it.
     *
     * @param name its name
     * @param type its type
     * @param <T> the type
     * @return the resource
     * @throws dev.dml.DmlException when nothing of that type is registered under the name
     */
    <T> T lookup(String name, Class<T> type);

    /**
     * Sends an event to the kernel while the task still runs (progress, metrics). Events of
     * one task arrive in the order they were emitted, before its result; the kernel hands
     * them to the listener given to {@link DriverProcess#submit(DriverTask,
     * java.util.function.Consumer)}. An event that cannot be serialized is dropped and logged:
     * progress must never fail the work it reports on.
     *
     * @param event a Serializable value whose class the kernel has too
     */
    void emit(java.io.Serializable event);

    /**
     * Closes a registered resource and forgets it; does nothing when the name is unknown.
     *
     * @param name its name
     */
    void release(String name);
}
