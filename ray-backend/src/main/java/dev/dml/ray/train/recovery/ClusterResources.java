package dev.dml.ray.train.recovery;

import dev.dml.DmlException;
import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fails a job fast when no set of nodes can hold its workers: Ray would wait without end. */
public final class ClusterResources {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterResources.class);

    private ClusterResources() {}

    /**
     * Checks that the cluster's live nodes have room for the workers, in the driver.
     *
     * @param workers the worker actors
     * @param cpus CPUs each reserves
     * @param gpus GPUs each reserves
     * @throws DmlException naming what the cluster lacks and how to fit the job
     */
    public static void check(int workers, double cpus, double gpus) {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return;
        }
        List<NodeInfo> nodes;
        try {
            nodes = Ray.getRuntimeContext().getAllNodeInfo();
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the cluster's resources; not checking them: {}", e.toString());
            return;
        }
        double cpuTotal = 0;
        double gpuTotal = 0;
        int cpuSlots = 0;
        int gpuSlots = 0;
        for (NodeInfo n : nodes) {
            if (!n.isAlive) {
                continue;
            }
            double c = n.resources.getOrDefault("CPU", 0.0);
            double g = n.resources.getOrDefault("GPU", 0.0);
            cpuTotal += c;
            gpuTotal += g;
            cpuSlots += cpus > 0 ? (int) Math.floor(c / cpus + 1e-9) : workers;
            gpuSlots += gpus > 0 ? (int) Math.floor(g / gpus + 1e-9) : workers;
        }
        if (gpus > 0 && gpuSlots < workers) {
            throw new DmlException("The job asks for " + workers + " workers with " + fmt(gpus)
                    + " GPU each, but the cluster has " + fmt(gpuTotal) + " GPU in all.",
                    "Lower {gpus-per-worker} or {workers}, or add GPU nodes to the cluster.");
        }
        if (cpus > 0 && cpuSlots < workers) {
            throw new DmlException("The job asks for " + workers + " workers with " + fmt(cpus)
                    + " CPU each, but the cluster has " + fmt(cpuTotal) + " CPU in all.",
                    "Lower {cpus-per-worker} (0 lets workers share CPUs) or {workers}, or add"
                            + " nodes.");
        }
    }

    /**
     * Counts the workers of a size that the cluster's live nodes could hold, free or not: it
     * rises when a node joins and falls when one is lost.
     *
     * @param cpus CPUs each reserves
     * @param gpus GPUs each reserves
     * @return the count; {@link Integer#MAX_VALUE} in Ray's LOCAL mode or when it cannot be read
     */
    public static int slots(double cpus, double gpus) {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return Integer.MAX_VALUE;
        }
        try {
            long total = 0;
            for (NodeInfo n : Ray.getRuntimeContext().getAllNodeInfo()) {
                if (n.isAlive) {
                    total += Math.min(fit(n.resources.getOrDefault("CPU", 0.0), cpus),
                            fit(n.resources.getOrDefault("GPU", 0.0), gpus));
                }
            }
            return (int) Math.min(Integer.MAX_VALUE, total);
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the cluster's resources: {}", e.toString());
            return Integer.MAX_VALUE;
        }
    }

    private static long fit(double has, double each) {
        return each > 0 ? (long) Math.floor(has / each + 1e-9) : Integer.MAX_VALUE;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }
}
