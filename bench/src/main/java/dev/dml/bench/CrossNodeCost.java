package dev.dml.bench;

import dev.dml.events.ProgressListener;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.CodeShipment;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.NamespacedCluster;
import dev.dml.ray.cluster.RayCluster;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.Table;

/**
 * P10: the cost of crossing nodes. The same 2-worker job on a namespaced multi-node cluster
 * ({@code NamespacedCluster}: a head on this machine, two nodes of 2 CPUs in their own network
 * and mount namespaces), with its workers on two nodes ({@code --placement spread}) or on one
 * ({@code pack}); the ratio is the throughput of the first over the second (goal at least 0.9).
 *
 * <p>The job is P2's: the MLP 784-1024-1024-10 (7.5 MB of gradients all-reduced per step),
 * batch 1024 per worker, 10 steps per epoch, 4 epochs ({@link TwoWorkerScaling#JOB}), the
 * first of which is the warm-up. Both cases run on the same two cores of this machine; what
 * differs is the path of the all-reduce's chunks: through one node's object store, or through
 * the object managers of two nodes over their veth link. Also measured: each job's start
 * (submit to workers running, to first step), the first job on fresh nodes (which fetch dml's
 * code packages and unpack libtorch), and the driver's start with the code upload (cold) and
 * with the packages already in the cluster (warm).
 */
final class CrossNodeCost implements Benchmark {

    static final double GOAL = 0.9;
    /** P2's job. */
    static final JobSize JOB = TwoWorkerScaling.JOB;
    static final Rounds ROUNDS = new Rounds(1, 5);

    @Override
    public BenchResult run(String command) throws Exception {
        String why = NamespacedCluster.unavailable().orElse(null);
        if (why != null) {
            throw new IllegalStateException("P10 cannot run here: " + why + ".");
        }
        MlpJobs.requireData("P10");
        Table table = MlpJobs.table(2 * JOB.rows());
        Case spread = new Case("two_nodes", "spread", "2 workers, one on each of two nodes",
                table);
        Case pack = new Case("one_node", "pack", "2 workers on one node", table);
        double load0 = MlpJobs.loadAverage();
        Map<String, Object> startup = new LinkedHashMap<>();
        long t0 = System.nanoTime();
        try (NamespacedCluster nodes = NamespacedCluster.start(2, 2)) {
            startup.put("fixture_start_s", seconds(t0));
            long c0 = System.nanoTime();
            try (RayCluster cluster = MlpJobs.openCluster(nodes)) {
                startup.put("cluster_open_s", seconds(c0));
                long d0 = System.nanoTime();
                try (DriverProcess driver = cluster.openDriver()) {
                    startup.put("driver_cold", driverStart(driver, d0));
                    long w0 = System.nanoTime();
                    try (DriverProcess again = cluster.openDriver()) {
                        startup.put("driver_warm", driverStart(again, w0));
                    }
                    new SideBySide(ROUNDS)
                            .add(spread.samples, round -> spread.run(round, driver))
                            .add(pack.samples, round -> pack.run(round, driver))
                            .run();
                }
            }
        }
        double ratio = spread.medianRate() / pack.medianRate();
        System.out.printf("P10: two nodes %.0f ex/s, one node %.0f ex/s, ratio %.3f (goal %.2f)%n",
                spread.medianRate(), pack.medianRate(), ratio, GOAL);
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("cluster", "NamespacedCluster: Ray head on this machine (0 CPUs, the driver's"
                + " node), 2 nodes of 2 CPUs, each in its own network namespace (veth on a"
                + " bridge) and mount namespace (no kernel jars, own /tmp and /dev/shm)");
        setup.put("job", "P2's: MLP 784-1024-1024-10, Adam lr " + MlpJobs.LEARNING_RATE
                + ", Fashion-MNIST, batch " + JOB.batch() + " per worker, " + JOB.steps()
                + " steps per epoch, " + JOB.epochs() + " epochs (the first is the warm-up),"
                + " optCpusPerWorker(1)");
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());
        Map<String, Object> cases = new LinkedHashMap<>();
        cases.put(spread.name, spread.toJson());
        cases.put(pack.name, pack.toJson());
        return new BenchResult("P10", GOAL, command)
                .setRatio(ratio)
                .put("ratio_is", "median(examples/s with the workers on two nodes) /"
                        + " median(examples/s with both on one node), the same job")
                .put("method", "one process, one cluster and driver; "
                        + ROUNDS.describe() + " of both jobs (SideBySide); each job's first"
                        + " epoch is its warm-up; medians")
                .put("setup", setup)
                .put("startup", startup)
                .put("cases", cases);
    }

    private static double seconds(long since) {
        return TrialTimes.round((System.nanoTime() - since) / 1e9, 3);
    }

    /** A driver's start: its wall time and what its code upload did. */
    private static Map<String, Object> driverStart(DriverProcess d, long since) {
        CodeShipment s = d.codeShipment().orElseThrow();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("open_s", seconds(since));
        m.put("code_upload_s", TrialTimes.round(s.seconds(), 3));
        m.put("uploaded_bytes", s.uploadedBytes());
        m.put("uploaded", s.uploaded().keySet());
        m.put("already_in_cluster", s.cached());
        return m;
    }

    /** One placement of the job, and its measurements. */
    private static final class Case extends JobCase {
        final String placement;
        final List<Double> toWorkers = new ArrayList<>();
        final List<Double> toFirstStep = new ArrayList<>();
        double coldToWorkers = Double.NaN;
        double coldToFirstStep = Double.NaN;
        long interNodeBytes;
        Set<String> nodes = Set.of();
        final Set<String> links = new java.util.TreeSet<>();

        Case(String name, String placement, String what, Table table) {
            super(name, what, MlpJobs.builder(table, 2, JOB.batch(), JOB.epochs(), "p10-" + name)
                    .opt(TrainOptions.PLACEMENT, TrainOptions.PLACEMENT.checkWord(placement))
                    .build());
            requireStepsPerEpoch(name, spec, JOB.steps());
            this.placement = placement;
        }

        double run(Round round, DriverProcess driver) {
            long t0 = System.nanoTime();
            double[] at = {Double.NaN, Double.NaN};
            MlpJobs.JobRun j = MlpJobs.runJob(spec, driver, new ProgressListener() {
                @Override
                public void onStart(List<WorkerInfo> workers) {
                    at[0] = (System.nanoTime() - t0) / 1e9;
                }

                @Override
                public void onStep(StepMetrics s) {
                    if (Double.isNaN(at[1])) {
                        at[1] = (System.nanoTime() - t0) / 1e9;
                    }
                }
            });
            Set<String> ips = new HashSet<>();
            j.workers.forEach(w -> ips.add(w.nodeIp()));
            if (ips.size() != ("spread".equals(placement) ? 2 : 1)) {
                throw new IllegalStateException(name + " ran on " + ips + ": " + j.workers);
            }
            nodes = ips;
            j.workers.forEach(w -> links.add(w.transport()));
            if (Double.isNaN(coldToWorkers)) {
                coldToWorkers = at[0];
                coldToFirstStep = at[1];
            }
            if (round.timed()) {
                toWorkers.add(at[0]);
                toFirstStep.add(at[1]);
                keepStep(j);
                interNodeBytes = j.interNodeBytes;
            }
            System.out.printf("  %-9s %.0f examples/s: compute %.1f ms, all-reduce %.1f ms;"
                    + " workers after %.1f s, first step after %.1f s%n", name,
                    j.examplesPerSecond(), j.stepComputeMs, j.stepCommMs, at[0], at[1]);
            return j.steadySeconds;
        }

        Map<String, Object> toJson() {
            List<Double> rates = rates();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", what + " (--placement " + placement + ")");
            m.put("nodes", nodes);
            m.put("links", links);
            m.put("examples_per_s", MlpJobs.series("examples/s over the timed epochs", rates, 1));
            m.put("step_compute_ms", MlpJobs.series("slowest rank's forward, backward, Adam",
                    compute, 2));
            m.put("step_all_reduce_ms", MlpJobs.series("slowest rank's gradient all-reduce,"
                    + " waiting included", comm, 2));
            m.put("all_reduce_bytes_per_step", allReduceBytes);
            m.put("inter_node_bytes_per_step", interNodeBytes);
            m.put("job_start_to_workers_s", MlpJobs.series("submit to every worker running and"
                    + " joined (actor JVMs, runtime env)", toWorkers, 3));
            m.put("job_start_to_first_step_s", MlpJobs.series("submit to the first step's"
                    + " metrics (also shards shipped and decoded, init's broadcast)",
                    toFirstStep, 3));
            m.put("first_job_to_workers_s", TrialTimes.round(coldToWorkers, 3));
            m.put("first_job_to_first_step_s", TrialTimes.round(coldToFirstStep, 3));
            return m;
        }
    }
}
