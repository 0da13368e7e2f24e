package dev.dml.bench;

import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * A1: asynchronous training through parameter servers ({@code --sync async --ps 2}) against
 * the synchronous all-reduce ({@code --sync sync}), with {@code ssp:2} beside them, side by side
 * in one run on Fashion-MNIST: 2 workers, equal epochs. Each round runs every mode once, the
 * first mode rotating. The ratio is the median steady throughput (examples/s over epochs 2 on)
 * of async over sync; the goal is at least 1.0 with held-out accuracy within 1 point of sync.
 */
final class AsyncVersusSync implements Benchmark {

    static final double GOAL = 1.0;
    static final double ACCURACY_POINTS = 1.0;
    static final List<String> MODES = List.of("sync", "async", "ssp:2");
    static final int SERVERS = 2;
    static final int ROUNDS = 3;
    /** P5's job: the same rows, model, batch and epochs. */
    static final int ROWS = CompressionTraffic.ROWS;
    static final int TEST_ROWS = CompressionTraffic.TEST_ROWS;
    static final int BATCH = CompressionTraffic.BATCH;
    static final int EPOCHS = CompressionTraffic.EPOCHS;
    static final int HIDDEN = CompressionTraffic.HIDDEN;

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("A1");
        Table train = MlpJobs.table(ROWS);
        HeldOut test = HeldOut.fashionMnist(TEST_ROWS);
        Map<String, List<Double>> rate = new LinkedHashMap<>();
        Map<String, List<Double>> accuracy = new LinkedHashMap<>();
        Map<String, List<Double>> computeMs = new LinkedHashMap<>();
        Map<String, List<Double>> commMs = new LinkedHashMap<>();
        Map<String, List<Double>> driverMs = new LinkedHashMap<>();
        for (String m : MODES) {
            for (Map<String, List<Double>> map : List.of(rate, accuracy, computeMs, commMs,
                    driverMs)) {
                map.put(m, new ArrayList<>());
            }
        }
        int steps = 0;
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms up, unrecorded
                for (int k = 0; k < MODES.size(); k++) {
                    String mode = MODES.get(Math.floorMod(round + k, MODES.size()));
                    TrainSpecBuilder b = MlpJobs.builder(train, 2, BATCH, EPOCHS, "a1-"
                            + mode.replace(':', '-')).setModel(ModelSpec.Family.MLP, HIDDEN)
                            .optSync(mode);
                    if (!"sync".equals(mode)) {
                        b.optParameterServers(SERVERS);
                    }
                    TrainSpec spec = b.build();
                    MlpJobs.JobRun j = MlpJobs.runJob(spec, driver);
                    steps = spec.stepsPerEpoch() * EPOCHS;
                    double acc = test.accuracy(j.result);
                    int steady = spec.stepsPerEpoch() * (EPOCHS - 1);
                    System.out.printf("  round %d %-6s %.0f examples/s, accuracy %.4f, compute"
                            + " %.1f ms, comm %.1f ms, driver %.1f ms per step%n", round, mode,
                            j.examplesPerSecond(), acc, j.stepComputeMs, j.stepCommMs,
                            j.driverMsPerStep(steady));
                    if (round >= 0) {
                        rate.get(mode).add(j.examplesPerSecond());
                        accuracy.get(mode).add(acc);
                        computeMs.get(mode).add(j.stepComputeMs);
                        commMs.get(mode).add(j.stepCommMs);
                        driverMs.get(mode).add(j.driverMsPerStep(steady));
                    }
                }
            }
        }
        double sync = MlpJobs.median(rate.get("sync"));
        Map<String, Object> modes = new LinkedHashMap<>();
        Map<String, Double> ratio = new LinkedHashMap<>();
        Map<String, Double> points = new LinkedHashMap<>();
        for (String m : MODES) {
            ratio.put(m, MlpJobs.median(rate.get(m)) / sync);
            points.put(m, 100 * (MlpJobs.median(accuracy.get("sync"))
                    - MlpJobs.median(accuracy.get(m))));
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("examples_per_s", MlpJobs.series("steady examples/s, epochs 2-" + EPOCHS,
                    rate.get(m), 1));
            o.put("accuracy", MlpJobs.series("held-out accuracy on " + TEST_ROWS
                    + " test images", accuracy.get(m), 4));
            o.put("compute_ms_per_step", MlpJobs.series("slowest rank's forward, backward and"
                    + " optimizer time per step", computeMs.get(m), 2));
            o.put("comm_ms_per_step", MlpJobs.series("slowest rank's all-reduce, or push and"
                    + " pull to the servers, per step", commMs.get(m), 2));
            o.put("driver_ms_per_step", MlpJobs.series("wall time per step beyond the slowest"
                    + " rank's compute and communication: calls between chunks, seeding and"
                    + " pulling", driverMs.get(m), 2));
            o.put("throughput_ratio_to_sync", TrialTimes.round(ratio.get(m), 3));
            o.put("accuracy_points_below_sync", TrialTimes.round(points.get(m), 2));
            modes.put(m, o);
        }
        double r = ratio.get("async");
        boolean accuracyMet = points.get("async") <= ACCURACY_POINTS;
        System.out.printf("A1: async %.3fx sync's throughput, %.2f points below; ssp:2 %.3fx,"
                + " %.2f points%n", r, points.get("async"), ratio.get("ssp:2"),
                points.get("ssp:2"));
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP 784-" + HIDDEN + "-10 (ReLU), Adam lr " + MlpJobs.LEARNING_RATE);
        setup.put("data", "Fashion-MNIST: the first " + ROWS + " training images (dealt to 2"
                + " workers, shuffled), the first " + TEST_ROWS + " test images");
        setup.put("job", "2 workers (1 CPU each), batch " + BATCH + " each, " + EPOCHS
                + " epochs = " + steps + " steps for every mode; async and ssp:2 through "
                + SERVERS + " parameter servers (Ray actor calls); embedded Ray head with 2"
                + " CPUs");
        setup.put("rounds", ROUNDS + " timed rounds after 1 warm-up round, the first mode"
                + " rotating");
        return new BenchResult("A1", GOAL, command)
                .setRatio(r)
                .put("ratio_is", "median steady examples/s of --sync async --ps " + SERVERS
                        + " / of --sync sync, equal epochs")
                .put("accuracy_goal", "async within " + ACCURACY_POINTS + " point of sync")
                .put("accuracy_points_below_sync_async", TrialTimes.round(points.get("async"),
                        2))
                .put("accuracy_goal_met", accuracyMet)
                .put("ssp_ratio", TrialTimes.round(ratio.get("ssp:2"), 3))
                .put("accuracy_points_below_sync_ssp", TrialTimes.round(points.get("ssp:2"), 2))
                .put("setup", setup)
                .put("modes", modes);
    }
}
