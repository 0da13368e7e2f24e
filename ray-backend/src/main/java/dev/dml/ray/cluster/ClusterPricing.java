package dev.dml.ray.cluster;

import dev.dml.DmlException;
import dev.dml.cost.Pricing;

/**
 * Sets how the driver prices the cluster's nodes, for the jobs it runs from now on: what
 * {@code %dml cluster price} sends. A driver nobody told prices with {@link Pricing#NONE}.
 * Runs in the driver: {@code driver.call(new ClusterPricing(pricing))}.
 */
public final class ClusterPricing implements DriverTask<Boolean> {

    private static final long serialVersionUID = 1L;
    private static final String KEY = "dml-pricing";

    private final Pricing pricing;

    /**
     * A task that sets the pricing.
     *
     * @param pricing how nodes are priced
     */
    public ClusterPricing(Pricing pricing) {
        this.pricing = pricing;
    }

    @Override
    public Boolean run(DriverContext context) {
        synchronized (ClusterPricing.class) {
            context.release(KEY);
            context.register(KEY, new Held(pricing));
        }
        return true;
    }

    /**
     * Returns the driver's pricing.
     *
     * @param context the driver
     * @return what the last {@link ClusterPricing} set, or {@link Pricing#NONE}
     */
    public static Pricing of(DriverContext context) {
        synchronized (ClusterPricing.class) {
            try {
                return context.lookup(KEY, Held.class).pricing;
            } catch (DmlException none) {
                return Pricing.NONE;
            }
        }
    }

    /** The pricing as a resource the driver holds; nothing to close. */
    private record Held(Pricing pricing) implements AutoCloseable {
        @Override
        public void close() {}
    }
}
