package dev.dml.ray.train.recovery;

import dev.dml.options.Placement;
import dev.dml.DmlException;
import dev.dml.ray.collective.Slot;
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
 * A job's Ray placement groups: one bundle per worker, which Ray packs onto as few nodes as
 * hold them ({@code --placement pack}) or spreads over as many nodes as there are ({@code
 * spread}); both are Ray's soft strategies, so a cluster too small for the wish still runs the
 * job. Reserved before the workers start, removed when the job ends. An elastic job reserves
 * what the cluster has room for, and more groups as it grows. Lives in the driver.
 */
public final class JobPlacement implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JobPlacement.class);
    /** A bundle must hold some resource; a worker of 0 CPUs reserves this little. */
    private static final double MIN_CPU = 0.001;
    /** How long an elastic job waits for each size it tries above its fewest. */
    private static final Duration TRY_WAIT = Duration.ofSeconds(5);

    private final String job;
    private final Placement strategy;
    private final Map<String, Double> bundle;
    private final List<PlacementGroup> groups = new ArrayList<>();

    private JobPlacement(String job, Placement strategy, double cpus, double gpus) {
        this.job = job;
        this.strategy = strategy;
        this.bundle = new HashMap<>(Map.of("CPU", Math.max(cpus, MIN_CPU)));
        if (gpus > 0) {
            bundle.put("GPU", gpus);
        }
    }

    /**
     * Reserves one bundle per worker and waits until Ray has placed them: {@code max} of them,
     * or for an elastic job as many as the cluster has room for, down to {@code min}.
     *
     * @param job the job's id, which names the groups
     * @param strategy {@code pack} or {@code spread}
     * @param min the fewest bundles the job runs with
     * @param max the most
     * @param cpus each bundle's CPUs
     * @param gpus each bundle's GPUs
     * @param timeout how long the reservation of {@code min} may take
     * @return the placement, or {@code null} in Ray's LOCAL mode (one process, no nodes)
     * @throws DmlException when the cluster does not place {@code min} bundles in time
     */
    public static JobPlacement open(String job, Placement strategy, int min, int max, double cpus,
            double gpus, Duration timeout) {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return null;
        }
        JobPlacement p = new JobPlacement(job, strategy, cpus, gpus);
        int start = Math.max(min, Math.min(max, ClusterResources.slots(cpus, gpus)));
        for (int w = start; w > min; w--) {
            if (p.reserve(w, TRY_WAIT) != null) {
                return p;
            }
        }
        if (p.reserve(min, timeout) == null) {
            throw new DmlException("The cluster did not place " + min + " workers of "
                    + cpus + " CPU" + (gpus > 0 ? " and " + gpus + " GPU" : "") + " each ("
                    + "{placement} " + strategy + ") within " + timeout.toSeconds() + " s: other"
                    + " jobs hold its resources.", "Wait for them to end, or lower {workers},"
                    + " {cpus-per-worker} or {gpus-per-worker}.");
        }
        return p;
    }

    /**
     * Reserves {@code count} more bundles, for workers a growing job adds.
     *
     * @param count the bundles
     * @param wait how long Ray may take to place them
     * @return their slots, or an empty list when the cluster did not place them in time
     */
    List<Slot> extend(int count, Duration wait) {
        PlacementGroup pg = reserve(count, wait);
        List<Slot> out = new ArrayList<>();
        for (int i = 0; pg != null && i < count; i++) {
            out.add(new Slot(pg, i));
        }
        return out;
    }

    private PlacementGroup reserve(int count, Duration wait) {
        PlacementGroup pg = PlacementGroups.createPlacementGroup(
                new PlacementGroupCreationOptions.Builder()
                        .setName("dml-" + job + (groups.isEmpty() ? "" : "-" + groups.size()))
                        .setBundles(java.util.Collections.nCopies(count, bundle))
                        .setStrategy(strategy == Placement.SPREAD ? PlacementStrategy.SPREAD
                                : PlacementStrategy.PACK).build());
        if (!pg.wait((int) Math.max(1, wait.toSeconds()))) {
            PlacementGroups.removePlacementGroup(pg.getId());
            LOG.info("{}: the cluster did not place {} bundles in {} s", job, count,
                    wait.toSeconds());
            return null;
        }
        LOG.info("{}: placement group {} of {} ({}) ready", job, pg.getId(), count, strategy);
        groups.add(pg);
        return pg;
    }

    /** Returns the first group, borrowed: the one the job's first workers start in. */
    public PlacementGroup group() {
        return groups.get(0);
    }

    /** Returns the bundles of the first group: the workers the job starts with. */
    public int size() {
        return group().getBundles().size();
    }

    /** Returns {@code pack} or {@code spread}. */
    Placement strategy() {
        return strategy;
    }

    /** Frees the reservations; Ray ends actors still in them. */
    @Override
    public void close() {
        groups.forEach(g -> PlacementGroups.removePlacementGroup(g.getId()));
    }
}
