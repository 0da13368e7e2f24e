package dev.dml.ray.plan;

import dev.dml.cost.Market;
import dev.dml.cost.NodePrice;
import dev.dml.cost.PlanRow;
import dev.dml.cost.Pricing;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.train.runner.JobRate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Prices a probed size as the job would pay for it: every node its workers ran on, whole, as
 * the cluster prices it now, and the same nodes in the other market when the catalogue has
 * that price.
 */
final class RowPricing {

    private final Pricing pricing;
    private final Map<String, Map<String, String>> labels;

    RowPricing(Pricing pricing, Map<String, Map<String, String>> labels) {
        this.pricing = pricing;
        this.labels = labels;
    }

    /** The row of the probe's nodes as they are priced now: the one that can run. */
    PlanRow measured(Probe probe, double seconds) {
        JobRate rate = JobRate.of(probe.placed(), pricing, labels);
        Market market = rate.spot() ? Market.SPOT : Market.ON_DEMAND;
        return new PlanRow(0, probe.workers(), nodes(probe, market, pricing, labels), market,
                rate.priced() ? rate.usdPerHour() : 0, seconds, probe.basis(), false, "");
    }

    /** The same nodes bought in the other market, when each has a catalogue price there. */
    Optional<PlanRow> otherMarket(Probe probe, double seconds) {
        JobRate now = JobRate.of(probe.placed(), pricing, labels);
        if (!now.priced() || Double.isNaN(now.usdPerHour())) {
            return Optional.empty();
        }
        Market other = now.spot() ? Market.ON_DEMAND : Market.SPOT;
        Map<String, Map<String, String>> relabelled = new HashMap<>();
        labels.forEach((id, l) -> {
            Map<String, String> m = new HashMap<>(l);
            if (l.containsKey(Pricing.INSTANCE_TYPE)) {
                m.put(Pricing.MARKET, other.word());
            }
            relabelled.put(id, m);
        });
        Pricing there = pricing.inMarket(other);
        JobRate rate = JobRate.of(probe.placed(), there, relabelled);
        boolean moved = rate.spot() == (other == Market.SPOT);
        if (!moved || Double.isNaN(rate.usdPerHour())) {
            return Optional.empty(); // a rate in dollars, or no price in that market
        }
        return Optional.of(new PlanRow(0, probe.workers(), nodes(probe, other, there,
                relabelled), other, rate.usdPerHour(), seconds, probe.basis()
                + " (the same nodes, bought " + other.word() + ")", false,
                "the cluster's nodes are priced " + (now.spot() ? "spot" : "on-demand")
                        + " now"));
    }

    /** Tells whether a probed node is of this instance type. */
    boolean clusterHas(String type) {
        for (Map<String, String> l : labels.values()) {
            if (type.equals(l.get(Pricing.INSTANCE_TYPE))) {
                return true;
            }
        }
        return pricing.instanceType().map(type::equals).orElse(false);
    }

    /** {@code 2 x m5.xlarge on-demand}, or {@code 1 node (not priced)}. */
    private static String nodes(Probe probe, Market market, Pricing p,
            Map<String, Map<String, String>> labels) {
        Map<String, String> kinds = new LinkedHashMap<>();
        for (WorkerInfo w : probe.placed()) {
            Map<String, String> l = labels.getOrDefault(w.nodeId(), Map.of());
            NodePrice price = p.price(l);
            String type = l.getOrDefault(Pricing.INSTANCE_TYPE, p.instanceType().orElse(null));
            kinds.put(w.nodeId(), type != null ? type + " " + market.word()
                    : price.priced() ? "node at $" + price.usdPerHour() + "/h" : "node");
        }
        Map<String, Integer> count = new LinkedHashMap<>();
        kinds.values().forEach(k -> count.merge(k, 1, Integer::sum));
        StringBuilder s = new StringBuilder();
        count.forEach((k, n) -> s.append(s.length() == 0 ? "" : " + ").append(n).append(" x ")
                .append(k));
        boolean unpriced = !JobRate.of(probe.placed(), p, labels).priced();
        return s + (unpriced ? " (not priced)" : "");
    }
}
