package dev.dml.ray.train;

import dev.dml.DmlException;
import io.ray.api.PlacementGroups;
import io.ray.api.Ray;
import io.ray.api.options.PlacementGroupCreationOptions;
import io.ray.api.placementgroup.PlacementGroup;
import io.ray.api.placementgroup.PlacementStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's Ray placement group: one bundle per worker, which Ray packs onto as few nodes as
 * hold them ({@code --placement pack}) or spreads over as many nodes as there are ({@code
 * spread}); both are Ray's soft strategies, so a cluster too small for the wish still runs the
 * job. Reserved before the workers start, removed when the job ends. Lives in the driver.
 */
final class JobPlacement implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JobPlacement.class);
    /** A bundle must hold some resource; a worker of 0 CPUs reserves this little. */
    private static final double MIN_CPU = 0.001;

    private final PlacementGroup group;
    private final String strategy;

    private JobPlacement(PlacementGroup group, String strategy) {
        this.group = group;
        this.strategy = strategy;
    }

    /**
     * Reserves one bundle per worker and waits until Ray has placed them.
     *
     * @param job the job's id, which names the group
     * @param strategy {@code pack} or {@code spread}
     * @param workers the bundles
     * @param cpus each bundle's CPUs
     * @param gpus each bundle's GPUs
     * @param timeout how long the reservation may take
     * @return the placement, or {@code null} in Ray's LOCAL mode (one process, no nodes)
     * @throws DmlException when the cluster does not place the bundles in time
     */
    static JobPlacement open(String job, String strategy, int workers, double cpus, double gpus,
            Duration timeout) {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return null;
        }
        Map<String, Double> bundle = new HashMap<>();
        bundle.put("CPU", Math.max(cpus, MIN_CPU));
        if (gpus > 0) {
            bundle.put("GPU", gpus);
        }
        List<Map<String, Double>> bundles = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            bundles.add(bundle);
        }
        PlacementGroup pg = PlacementGroups.createPlacementGroup(
                new PlacementGroupCreationOptions.Builder().setName("dml-" + job)
                        .setBundles(bundles).setStrategy("spread".equals(strategy)
                                ? PlacementStrategy.SPREAD : PlacementStrategy.PACK).build());
        if (!pg.wait((int) Math.max(1, timeout.toSeconds()))) {
            PlacementGroups.removePlacementGroup(pg.getId());
            throw new DmlException("The cluster did not place " + workers + " workers of "
                    + cpus + " CPU" + (gpus > 0 ? " and " + gpus + " GPU" : "") + " each ("
                    + "{placement} " + strategy + ") within " + timeout.toSeconds() + " s: other"
                    + " jobs hold its resources.", "Wait for them to end, or lower {workers},"
                    + " {cpus-per-worker} or {gpus-per-worker}.");
        }
        LOG.info("{}: placement group {} ({}) ready", job, pg.getId(), strategy);
        return new JobPlacement(pg, strategy);
    }

    /** Returns the placement group, borrowed. */
    PlacementGroup group() {
        return group;
    }

    /** Returns {@code pack} or {@code spread}. */
    String strategy() {
        return strategy;
    }

    /** Frees the reservation; Ray ends actors still in it. */
    @Override
    public void close() {
        PlacementGroups.removePlacementGroup(group.getId());
    }
}
