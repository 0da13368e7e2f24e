package dev.dml.ray.plan;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.cost.InstancePrice;
import dev.dml.cost.JobPlan;
import dev.dml.cost.Market;
import dev.dml.cost.PlanRow;
import dev.dml.cost.Pricing;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.cluster.ClusterNodes;
import dev.dml.ray.train.TrainSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Plans a job before it runs, as {@code %dml plan} does: for each number of workers, a short
 * probe on the real cluster measures the step time ({@link Probe}), which predicts the whole
 * job's wall time; each configuration is priced in each market the catalogue knows; instance
 * types the cluster has no node of are listed with their price and no time.
 *
 * <pre>{@code
 * JobPlan plan = JobPlanner.builder().setSpec(spec).setDriver(driver)
 *         .optPricing(pricing).addSizes(1, 2, 4).addInstance("g5.xlarge").build().plan();
 * }</pre>
 */
public final class JobPlanner {

    private static final Duration NODES_TIMEOUT = Duration.ofSeconds(10);
    /** Sizes tried when none are given: 1 up to what the cluster holds, at most this. */
    private static final int MAX_DEFAULT_SIZE = 8;
    /** Fewer steps (three calls of the default ten) leave no steady calls to time. */
    static final int MIN_PROBE_STEPS = 30;

    private final Builder b;

    private JobPlanner(Builder b) {
        this.b = b;
    }

    /**
     * Starts a planner.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Probes each size on the cluster and ranks the configurations.
     *
     * @return the plan
     * @throws DmlException when the spec cannot be planned (a staged strategy)
     */
    public JobPlan plan() {
        TrainSpec spec = b.dataParallelSpec("A plan",
                "Plan the job without {strategy}, or size it with {replicas}.");
        List<ClusterNodes.Node> nodes = b.driver.call(new ClusterNodes(), NODES_TIMEOUT);
        Map<String, Map<String, String>> labels = new java.util.HashMap<>();
        nodes.forEach(n -> labels.put(n.id, n.labels));
        int capacity = capacity(nodes, spec);
        List<Integer> sizes = b.sizesOr(defaultSizes(capacity));
        RowPricing pricing = new RowPricing(b.pricing, labels);
        List<PlanRow> rows = new ArrayList<>();
        double probeSeconds = 0;
        double probeUsd = 0;
        int n = 0;
        for (int w : sizes) {
            n++;
            if (w > capacity) {
                rows.add(new PlanRow(0, w, "this cluster", Market.ON_DEMAND, Double.NaN,
                        Double.NaN, "does not fit: the cluster holds " + capacity
                                + (capacity == 1 ? " worker" : " workers") + " of this size",
                        false, "the cluster holds " + capacity + " of its workers"));
                continue;
            }
            TrainSpec probeSpec;
            try {
                probeSpec = spec.probe(w, b.probeSteps);
            } catch (DmlException cannot) { // e.g. gradient compression with one worker
                String why = "cannot run at this size: "
                        + Vocabulary.NOTEBOOK.render(cannot.whatTemplate());
                rows.add(new PlanRow(0, w, "this cluster", Market.ON_DEMAND, Double.NaN,
                        Double.NaN, why, false, why));
                continue;
            }
            b.progress.accept(String.format(Locale.ROOT, "Probe %d of %d: %d %s, %d steps …",
                    n, sizes.size(), w, w == 1 ? "worker" : "workers", b.probeSteps));
            Probe probe = ProbeRun.run(probeSpec, b.driver);
            int full = spec.toBuilder().opt(TrainOptions.WORKERS, WorkerRange.of(w)).build()
                    .stepsPerEpoch();
            double seconds = probe.predict(spec.epochs(), full);
            probeSeconds += probe.wallSeconds();
            PlanRow own = pricing.measured(probe, seconds);
            probeUsd += probe.wallSeconds() / 3600 * (Double.isNaN(own.usdPerHour()) ? 0
                    : own.usdPerHour());
            rows.add(own);
            pricing.otherMarket(probe, seconds).ifPresent(rows::add);
            b.progress.accept(String.format(Locale.ROOT, "Probe %d of %d: %d %s, %.1f ms/step;"
                    + " the whole job: %s", n, sizes.size(), w, w == 1 ? "worker" : "workers",
                    probe.stepSeconds() * 1e3, JobPlan.duration(seconds)));
        }
        for (String type : b.instances) {
            rows.addAll(unmeasured(type, sizes, pricing, spec));
        }
        double budget = orNaN(spec.get(TrainOptions.BUDGET));
        double deadline = orNaN(spec.get(TrainOptions.DEADLINE));
        String job = String.format(Locale.ROOT, "%s, %d %s", spec.name(), spec.epochs(),
                spec.epochs() == 1 ? "epoch" : "epochs");
        return JobPlan.rank(job, rows, budget, deadline, probeSeconds, probeUsd);
    }

    private List<PlanRow> unmeasured(String type, List<Integer> sizes, RowPricing pricing,
            TrainSpec spec) {
        InstancePrice row = b.pricing.instance(type).orElseThrow(() -> new DmlException(
                "No price catalogue lists the instance type '" + DmlException.literal(type)
                        + "'.", "Name a type of dml's catalogue (docs/cost.md lists them), or"
                        + " add your own with %dml cluster price --catalog vms.csv."));
        if (pricing.clusterHas(type)) {
            return List.of(); // the probes measured it
        }
        List<PlanRow> out = new ArrayList<>();
        double gpus = spec.gpusPerWorker();
        for (int w : sizes) {
            int per = gpus > 0 ? (int) Math.floor(row.acceleratorCount() / gpus)
                    : spec.cpusPerWorker() > 0 && !Double.isNaN(row.vcpus())
                            ? (int) Math.floor(row.vcpus() / spec.cpusPerWorker()) : w;
            if (per < 1) {
                continue; // one worker does not fit such a node
            }
            int nodes = (w + per - 1) / per;
            for (Market m : Market.values()) {
                double usd = row.price(m);
                if (!Double.isNaN(usd)) {
                    String why = "time not measured: the cluster has no " + type + " node";
                    out.add(new PlanRow(0, w, nodes + " x " + row.label().replace(type, type
                            + " " + m.word()), m, nodes * usd, Double.NaN, why, false, why));
                }
            }
        }
        return out;
    }

    private static int capacity(List<ClusterNodes.Node> nodes, TrainSpec spec) {
        int total = 0;
        for (ClusterNodes.Node n : nodes) {
            if (!n.alive) {
                continue;
            }
            int byCpu = spec.cpusPerWorker() > 0 ? (int) Math.floor(n.cpus
                    / spec.cpusPerWorker() + 1e-9) : MAX_DEFAULT_SIZE;
            int byGpu = spec.gpusPerWorker() > 0 ? (int) Math.floor(n.gpus
                    / spec.gpusPerWorker() + 1e-9) : byCpu;
            total += Math.min(byCpu, byGpu);
        }
        return total;
    }

    private static List<Integer> defaultSizes(int capacity) {
        List<Integer> out = new ArrayList<>();
        for (int w = 1; w <= Math.max(1, Math.min(capacity, MAX_DEFAULT_SIZE)); w++) {
            out.add(w);
        }
        return out;
    }

    private static double orNaN(Double v) {
        return v == null ? Double.NaN : v;
    }

    /**
     * The planner's settings: {@code setX} required, {@code optX} and {@code addX} not. Without
     * {@code addSizes}, every size from 1 to what the cluster holds (at most 8).
     */
    public static final class Builder extends SizingBuilder<Builder> {
        private Pricing pricing = Pricing.NONE;
        private final List<String> instances = new ArrayList<>();
        private int probeSteps = 100;

        private Builder() {}

        /**
         * Sets how the cluster's nodes are priced.
         *
         * @param p the pricing; {@link Pricing#NONE} by default (labelled nodes only)
         * @return this builder
         */
        public Builder optPricing(Pricing p) {
            this.pricing = Objects.requireNonNull(p, "pricing");
            return this;
        }

        /**
         * Adds an instance type to price beside the cluster's own nodes.
         *
         * @param type a type of the price catalogue, e.g. {@code g5.xlarge}
         * @return this builder
         */
        public Builder addInstance(String type) {
            instances.add(Objects.requireNonNull(type, "type"));
            return this;
        }

        /**
         * Sets the steps each probe trains.
         *
         * @param steps at least 30 (the first half warms up)
         * @return this builder
         */
        public Builder optProbeSteps(int steps) {
            if (steps < MIN_PROBE_STEPS) {
                throw new DmlException("A probe needs at least " + MIN_PROBE_STEPS + " steps to"
                        + " time its steady steps, got " + steps + ".", "Use {probe-steps=100}.");
            }
            this.probeSteps = steps;
            return this;
        }

        /**
         * Checks the settings.
         *
         * @return the planner
         * @throws DmlException naming a missing required setting
         */
        public JobPlanner build() {
            checkRequired("planner");
            return new JobPlanner(this);
        }
    }
}
