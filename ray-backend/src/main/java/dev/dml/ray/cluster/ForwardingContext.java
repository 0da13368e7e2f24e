package dev.dml.ray.cluster;

/**
 * A driver context that hands everything to another one: a subclass changes only what it must
 * (where a job's events go) and keeps the driver's resources as they are.
 */
public abstract class ForwardingContext implements DriverContext {

    private final DriverContext driver;

    /** @param driver the context everything else goes to */
    protected ForwardingContext(DriverContext driver) {
        this.driver = driver;
    }

    /** @return the context everything else goes to */
    protected final DriverContext driver() {
        return driver;
    }

    @Override
    public String address() {
        return driver.address();
    }

    @Override
    public <T extends AutoCloseable> T register(String name, T resource) {
        return driver.register(name, resource);
    }

    @Override
    public <T> T lookup(String name, Class<T> type) {
        return driver.lookup(name, type);
    }

    @Override
    public void release(String name) {
        driver.release(name);
    }
}
