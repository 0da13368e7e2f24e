package dev.dml.bench;

import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * P2: the global throughput of 2 dml workers divided by that of 1 worker, on a real embedded Ray
 * head with 2 CPUs, each worker {@code optCpusPerWorker(1)} and one PyTorch thread (goal at least
 * 1.8).
 *
 * <p>Weak scaling, as DDP benchmarks report it: the batch per worker is 1024 for both ({@link
 * #JOB}), so 2 workers train a global batch of 2048 on twice the rows in the same number of
 * steps. The strong-scaling number (2 workers, 512 each, the same global batch and rows as
 * 1 worker) is measured in the same rounds, as context. The model is P1's MLP
 * 784-1024-1024-10 (1.86M parameters, 7.5 MB of gradients all-reduced per step). Throughput is
 * over the epochs after the first, as in P1; one cluster and one driver serve every job.
 */
final class TwoWorkerScaling implements Benchmark {

    static final double GOAL = 1.8;
    /** Batch 1024 per worker, 10 steps per epoch, 4 epochs (the first is the warm-up). */
    static final JobSize JOB = new JobSize(1024, 10, 4);
    static final Rounds ROUNDS = new Rounds(1, 5);

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("P2");
        TrainSpec one = MlpJobs.spec(MlpJobs.table(JOB.rows()), 1, JOB.batch(), JOB.epochs(),
                "p2-1w");
        TrainSpec two = MlpJobs.spec(MlpJobs.table(2 * JOB.rows()), 2, JOB.batch(),
                JOB.epochs(), "p2-2w");
        TrainSpec strong = MlpJobs.spec(MlpJobs.table(JOB.rows()), 2, JOB.batch() / 2,
                JOB.epochs(), "p2-2w-strong");
        double load0 = MlpJobs.loadAverage();
        Case c1 = new Case("one_worker", one, "1 worker, batch " + JOB.batch());
        Case c2 = new Case("two_workers", two, "2 workers, batch " + JOB.batch() + " each (global "
                + 2 * JOB.batch() + "), twice the rows: weak scaling");
        Case cs = new Case("two_workers_strong", strong, "2 workers, batch " + JOB.batch() / 2
                + " each (global " + JOB.batch() + "), the same rows as 1 worker: strong scaling");
        double clusterStart;
        long c0 = System.nanoTime();
        try (RayCluster cluster = MlpJobs.openCluster()) {
            clusterStart = (System.nanoTime() - c0) / 1e9;
            try (DriverProcess driver = cluster.openDriver()) {
                new SideBySide(ROUNDS)
                        .add(c1.samples, round -> c1.run(round, driver))
                        .add(c2.samples, round -> c2.run(round, driver))
                        .add(cs.samples, round -> cs.run(round, driver))
                        .run();
            }
        }
        double ratio = c2.medianRate() / c1.medianRate();
        double strongRatio = cs.medianRate() / c1.medianRate();
        double[] s1 = c1.samples.seconds();
        double[] s2 = c2.samples.seconds();
        List<Double> paired = new ArrayList<>();
        for (int i = 0; i < s1.length; i++) {
            paired.add((c2.examples / s2[i]) / (c1.examples / s1[i]));
        }
        System.out.printf("P2: 1 worker %.0f ex/s, 2 workers %.0f ex/s, ratio %.3f (goal %.2f);"
                + " strong %.3f%n", c1.medianRate(), c2.medianRate(), ratio, GOAL, strongRatio);

        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP 784-1024-1024-10 (ReLU), standardized inputs, softmax"
                + " cross-entropy; Adam lr " + MlpJobs.LEARNING_RATE + ", seed " + MlpJobs.SEED);
        setup.put("data", "Fashion-MNIST train, first rows (Debian dataset-fashion-mnist)");
        setup.put("cluster", "embedded Ray head, optNumCpus(2); optCpusPerWorker(1); one PyTorch"
                + " thread per worker");
        setup.put("scaling", "weak: batch " + JOB.batch() + " per worker for 1 and 2 workers, "
                + JOB.steps() + " steps per epoch each; global throughput = workers * batch * steps"
                + " / seconds");
        setup.put("epochs", JOB.epochs());
        setup.put("timed_steps_per_repetition", JOB.timedSteps());
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());
        setup.put("cluster_start_s", TrialTimes.round(clusterStart, 3));

        Map<String, Object> cases = new LinkedHashMap<>();
        for (Case c : new Case[] {c1, c2, cs}) {
            cases.put(c.name, c.toJson());
        }
        return new BenchResult("P2", GOAL, command)
                .setRatio(ratio)
                .put("ratio_is", "median(2-worker global examples/s) / median(1-worker"
                        + " examples/s), weak scaling (the same batch per worker)")
                .put("strong_scaling_ratio", TrialTimes.round(strongRatio, 4))
                .put("strong_scaling_is", "median(2 workers, same global batch " + JOB.batch()
                        + " and rows as 1 worker) / median(1 worker): context, not the goal")
                .put("paired_ratios", paired.stream().map(x -> TrialTimes.round(x, 4)).toArray())
                .put("paired_ratio_median", TrialTimes.round(MlpJobs.median(paired), 4))
                .put("method", "one process, one cluster and driver; "
                        + ROUNDS.describe() + " of the three jobs (SideBySide: each round"
                        + " starts at the next job, full GC before each); each job's first"
                        + " epoch is its warm-up; medians")
                .put("setup", setup)
                .put("cases", cases);
    }

    /** One job configuration and its measurements. */
    private static final class Case extends JobCase {
        final List<Double> cpu = new ArrayList<>();

        Case(String name, TrainSpec spec, String what) {
            super(name, what, spec);
            requireStepsPerEpoch(name, spec, JOB.steps());
        }

        double run(Round round, DriverProcess driver) {
            MlpJobs.JobRun j = MlpJobs.runJob(spec, driver);
            if (round.timed()) {
                keepRun(j);
                double c = 0;
                for (double x : j.cpuPercent) {
                    c += x;
                }
                cpu.add(c / j.cpuPercent.length);
            }
            System.out.printf("  %-19s %.0f examples/s: compute %.1f ms, all-reduce %.1f ms,"
                    + " driver %.1f ms per step; startup %.1f s%n", name,
                    j.examplesPerSecond(), j.stepComputeMs, j.stepCommMs,
                    j.driverMsPerStep(steadySteps), j.startupSeconds());
            return j.steadySeconds;
        }

        Map<String, Object> toJson() {
            List<Double> rates = rates();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", what);
            m.put("workers", spec.workers());
            m.put("batch_per_worker", spec.batchSize());
            m.put("rows", spec.trainTable().rowCount());
            m.put("examples_per_repetition", examples);
            m.put("examples_per_s", MlpJobs.series("global examples/s over the timed epochs",
                    rates, 1));
            m.put("steady_seconds", MlpJobs.series("seconds of the timed epochs",
                    java.util.Arrays.stream(samples.seconds()).boxed().toList(), 4));
            m.put("step_ms", TrialTimes.round(samples.medianSeconds() * 1e3 / steadySteps, 2));
            Map<String, Object> split = new LinkedHashMap<>();
            split.put("source", "StepMetrics of the timed epochs (slowest rank per step), mean"
                    + " per step; median over the repetitions");
            split.put("compute_ms", MlpJobs.series("forward + backward + gradient copies + Adam",
                    compute, 2));
            split.put("all_reduce_ms", MlpJobs.series("gradient all-reduce, waiting for the"
                    + " peer included", comm, 2));
            split.put("driver_ms", MlpJobs.series("epoch time per step minus (slowest rank's"
                    + " compute + slowest rank's all-reduce); negative with 2 ranks because"
                    + " the faster rank's all-reduce includes waiting for the slower one's"
                    + " compute, so the two maxima overlap", driverMs, 2));
            split.put("all_reduce_bytes_per_step", allReduceBytes);
            split.put("worker_cpu_percent", MlpJobs.series("mean over ranks of the process CPU"
                    + " use at the last report (100 = one core)", cpu, 1));
            m.put("per_step", split);
            m.put("job_startup_s", MlpJobs.series("wall time minus all epochs: shard encoding,"
                    + " actor start, shipping, init, result fetch", startup, 3));
            m.put("first_epoch_s", MlpJobs.series("the warm-up epoch", firstEpoch, 3));
            return m;
        }
    }
}
