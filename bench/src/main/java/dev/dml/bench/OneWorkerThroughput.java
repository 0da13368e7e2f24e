package dev.dml.bench;

import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * P1: the throughput of a 1-worker dml job on a real embedded Ray cluster divided by that of a
 * plain single-process loop in this JVM (goal at least 0.95).
 *
 * <p>Both train the same MLP 784-1024-1024-10 (1.86M parameters) with Adam, batch 512, on the same
 * first {@value #ROWS} rows of Fashion-MNIST, for {@value #EPOCHS} epochs of 20 steps, with one
 * PyTorch thread. The subject is {@code Dml.start(spec, driver).await()} with {@code
 * optWorkers(1)}; one cluster and one driver serve every repetition. The peer is what a user
 * writes without dml: the same NDArrays in this JVM, {@link
 * dev.dml.ray.model.TrainingReplica#forwardBackward} then {@code step()} (plain DJL blocks,
 * PyTorch autograd and the same Adam), no gradient copy and no all-reduce. Each side's first
 * epoch is its warm-up; throughput is over the later epochs. Startup (shard encoding, actor
 * start, data shipping, init, result fetch) is reported apart.
 */
final class OneWorkerThroughput implements Benchmark {

    static final double GOAL = 0.95;
    static final int BATCH = 512;
    static final int ROWS = 20 * BATCH;
    static final int EPOCHS = 4;
    static final Rounds ROUNDS = new Rounds(1, 5);

    private static final String SUBJECT = "Dml.start(spec, driver).await() with optWorkers(1),"
            + " optCpusPerWorker(1), on one embedded Ray head (2 CPUs) and one driver kept for"
            + " the whole run; steady-state seconds = the driver's epoch times of epochs 2.."
            + EPOCHS;
    private static final String PEER = "single-process loop in the bench JVM over the same"
            + " NDArrays (TableArrays.openArrays of the same table): TrainingReplica"
            + ".forwardBackward + step (plain DJL MLP block, PyTorch autograd, the same Adam);"
            + " same seed, batches and steps; epochs 2.." + EPOCHS + " timed";

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("P1");
        Table table = MlpJobs.table(ROWS);
        TrainSpec spec = MlpJobs.spec(table, 1, BATCH, EPOCHS, "p1");
        JobCase dml = new JobCase("dml_1_worker", SUBJECT, spec);
        int spe = spec.stepsPerEpoch();
        int steadySteps = dml.steadySteps;
        long examples = dml.examples;
        double load0 = MlpJobs.loadAverage();

        TrialTimes subject = dml.samples;
        TrialTimes peer = new TrialTimes("plain_djl_loop", 0);
        List<Double> wall = new ArrayList<>();
        List<Double> peerFirst = new ArrayList<>();
        float[] subjectLoss = new float[1];
        float[] peerLoss = new float[1];
        double clusterStart;
        double driverStart;
        long c0 = System.nanoTime();
        try (RayCluster cluster = MlpJobs.openCluster()) {
            clusterStart = (System.nanoTime() - c0) / 1e9;
            long d0 = System.nanoTime();
            try (DriverProcess driver = cluster.openDriver();
                    MlpJobs.Peer plain = new MlpJobs.Peer(spec)) {
                driverStart = (System.nanoTime() - d0) / 1e9;
                new SideBySide(ROUNDS)
                        .add(subject, round -> {
                            MlpJobs.JobRun j = MlpJobs.runJob(spec, driver);
                            if (round.timed()) {
                                dml.keepRun(j);
                                wall.add(j.wallSeconds);
                            }
                            subjectLoss[0] = j.finalLoss;
                            System.out.printf("  dml:   %.0f examples/s (startup %.1f s)%n",
                                    j.examplesPerSecond(), j.startupSeconds());
                            return j.steadySeconds;
                        })
                        .add(peer, round -> {
                            double[] s = plain.run(peerLoss);
                            double steady = 0;
                            for (int e = 1; e < s.length; e++) {
                                steady += s[e];
                            }
                            if (round.timed()) {
                                peerFirst.add(s[0]);
                            }
                            System.out.printf("  plain: %.0f examples/s%n", examples / steady);
                            return steady;
                        })
                        .run();
            }
        }
        double ratio = peer.medianSeconds() / subject.medianSeconds();
        double[] ps = peer.seconds();
        double[] ss = subject.seconds();
        List<Double> subjectRate = dml.rates();
        List<Double> peerRate = peer.rates(examples);
        List<Double> paired = new ArrayList<>();
        for (int i = 0; i < ss.length; i++) {
            paired.add(ps[i] / ss[i]);
        }
        double peerStepMs = peer.medianSeconds() * 1e3 / steadySteps;
        double subjectStepMs = subject.medianSeconds() * 1e3 / steadySteps;
        System.out.printf("P1: dml %.0f ex/s, plain %.0f ex/s, ratio %.3f (goal %.2f)%n",
                examples / subject.medianSeconds(), examples / peer.medianSeconds(), ratio, GOAL);

        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP 784-1024-1024-10 (ReLU), standardized inputs, softmax"
                + " cross-entropy; Adam lr " + MlpJobs.LEARNING_RATE + ", seed " + MlpJobs.SEED);
        setup.put("data", "Fashion-MNIST train, first " + ROWS + " rows (Debian"
                + " dataset-fashion-mnist)");
        setup.put("batch", BATCH);
        setup.put("epochs", EPOCHS);
        setup.put("steps_per_epoch", spe);
        setup.put("timed_steps_per_repetition", steadySteps);
        setup.put("examples_per_repetition", examples);
        setup.put("pytorch_threads", "1 in the bench JVM and in the worker");
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());

        Map<String, Object> subj = throughputJson(subject, SUBJECT, examples, subjectRate,
                subjectStepMs);
        Map<String, Object> pr = throughputJson(peer, PEER, examples, peerRate, peerStepMs);

        Map<String, Object> split = new LinkedHashMap<>();
        split.put("source", "StepMetrics of the timed epochs, mean per step, median over the"
                + " repetitions");
        split.put("compute_ms", MlpJobs.series("forward + backward + gradient copy out/in +"
                + " Adam step, in the worker", dml.compute, 2));
        split.put("all_reduce_ms", MlpJobs.series("all-reduce with 1 rank: a clone of the"
                + " gradient array", dml.comm, 2));
        split.put("driver_ms", MlpJobs.series("epoch time per step minus the worker's compute"
                + " + all-reduce: the driver's round trips (one per 10 steps) and reporting",
                dml.driverMs, 2));
        split.put("peer_step_ms", TrialTimes.round(peerStepMs, 2));
        split.put("dml_step_ms", TrialTimes.round(subjectStepMs, 2));

        Map<String, Object> excluded = new LinkedHashMap<>();
        excluded.put("cluster_start_s", TrialTimes.round(clusterStart, 3));
        excluded.put("driver_start_s", TrialTimes.round(driverStart, 3));
        excluded.put("job_startup_s", MlpJobs.series("per job: wall time minus all epochs ="
                + " shard encoding, submit, actor JVM start, shipping and decoding the shard,"
                + " init (broadcast), parameter fetch and release", dml.startup, 3));
        excluded.put("job_wall_s", MlpJobs.series("per job: Dml.start to await's return",
                wall, 3));
        excluded.put("first_epoch_s", MlpJobs.series("dml's warm-up epoch (fresh worker JVM)",
                dml.firstEpoch, 3));
        excluded.put("peer_first_epoch_s", MlpJobs.series("the peer's first epoch (warm JVM)",
                peerFirst, 3));

        return new BenchResult("P1", GOAL, command)
                .setRatio(ratio)
                .put("ratio_is", "median(dml examples/s) / median(plain examples/s) over the"
                        + " timed repetitions; equal examples, so median(peer s) /"
                        + " median(dml s)")
                .put("subject", subj)
                .put("peer", pr)
                .put("paired_ratios", paired.stream().map(x -> TrialTimes.round(x, 4)).toArray())
                .put("paired_ratio_median", TrialTimes.round(MlpJobs.median(paired), 4))
                .put("method", "one process; " + ROUNDS.describe()
                        + " alternating dml and plain (SideBySide: each round starts at the next"
                        + " trial, full GC before each); medians")
                .put("setup", setup)
                .put("where_the_time_goes", split)
                .put("excluded_from_throughput", excluded)
                .put("final_loss", Map.of("dml", subjectLoss[0], "plain", peerLoss[0]));
    }

    /** One side's timings as examples/s (P1 moves examples, not bytes). */
    private static Map<String, Object> throughputJson(TrialTimes side, String what, double examples,
            List<Double> rates, double stepMs) {
        Map<String, Object> json = new LinkedHashMap<>(side.toJson(what));
        json.remove("bytes");
        json.remove("mb_per_s");
        json.put("examples_per_s", TrialTimes.round(examples / side.medianSeconds(), 1));
        json.put("examples_per_s_samples", MlpJobs.series("", rates, 1).get("samples"));
        json.put("step_ms", TrialTimes.round(stepMs, 2));
        return json;
    }
}
