package dev.dml.ray.train.runner;

import dev.dml.cost.NodePrice;
import dev.dml.cost.Pricing;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a job's nodes cost an hour: the sum over the nodes its workers occupy, each node paid
 * whole, as a cloud bills it, however few of its CPUs the workers use.
 *
 * @param usdPerHour dollars per hour; NaN when a node's price is unknown
 * @param priced whether any node is priced
 * @param spot whether any node is a spot instance
 * @param nodes one line on how the nodes are priced
 * @param problem why a price is unknown; empty when every price is known
 */
public record JobRate(double usdPerHour, boolean priced, boolean spot, String nodes,
        String problem) {

    /**
     * Prices a job's nodes.
     *
     * @param workers the job's workers, whose node ids say where they run
     * @param pricing how nodes are priced
     * @param labels each node's Ray labels, by node id
     * @return the job's rate
     */
    public static JobRate of(List<WorkerInfo> workers, Pricing pricing,
            Map<String, Map<String, String>> labels) {
        Map<String, NodePrice> byNode = new LinkedHashMap<>();
        for (WorkerInfo w : workers) {
            byNode.computeIfAbsent(w.nodeId(),
                    id -> pricing.price(labels.getOrDefault(id, Map.of())));
        }
        double usd = 0;
        boolean priced = false;
        boolean spot = false;
        String problem = "";
        Map<String, Integer> kinds = new LinkedHashMap<>();
        for (NodePrice p : byNode.values()) {
            usd += p.usdPerHour();
            priced |= p.priced();
            spot |= p.spot();
            problem = problem.isEmpty() ? p.problem() : problem;
            kinds.merge(p.known() ? p.describe() : p.what(), 1, Integer::sum);
        }
        List<String> parts = new ArrayList<>();
        kinds.forEach((k, n) -> parts.add(n == 1 ? k : n + " x " + k));
        String nodes = (byNode.size() == 1 ? "1 node" : byNode.size() + " nodes") + ": "
                + String.join("; ", parts);
        return new JobRate(usd, priced, spot, nodes, problem);
    }
}
