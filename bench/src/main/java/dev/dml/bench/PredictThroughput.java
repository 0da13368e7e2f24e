package dev.dml.bench;

import dev.dml.events.PredictProgress;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.predict.BatchPredictor;
import dev.dml.ray.train.result.ResultFiles;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * P11: distributed batch inference, {@code Dml.predict(model).optWorkers(2)} on a real embedded
 * Ray head (2 CPUs), against {@code model.predict(table)} in this JVM, on the same table and
 * model, side by side in one run (goal: 1.5 times the rows per second).
 *
 * <p>Each call is timed whole, as a user waits for it: for the subject the shard encoding, the
 * workers' JVM start, the model's and shards' trip, the scoring, the trip back and the scored
 * table's assembly (the input's columns and the predictions); for the peer the encoding and the
 * scoring. Both use one PyTorch thread per process and batches of 4096 rows. The workers'
 * scoring rate (from their progress) and the subject's start-up are reported apart.
 */
final class PredictThroughput implements Benchmark {

    static final double GOAL = 1.5;
    static final int ROWS = 1_000_000;
    static final int WORKERS = 2;
    static final Rounds ROUNDS = new Rounds(1, 5);
    static final int[] HIDDEN = {256, 256};

    @Override
    public BenchResult run(String command) throws Exception {
        Table table = SyntheticFraud.generate(ROWS, 11);
        double load0 = MlpJobs.loadAverage();
        TrialTimes subject = new TrialTimes("dml_predict_2_workers", 0);
        TrialTimes peer = new TrialTimes("train_result_predict_1_process", 0);
        List<Double> scoringRate = new ArrayList<>();
        List<Double> startup = new ArrayList<>();
        boolean[] same = {true};
        TrialTimes beforeScoring = new TrialTimes("call_to_first_progress", 0);
        TrialTimes scoring = new TrialTimes("first_to_last_progress", 0);
        TrialTimes afterScoring = new TrialTimes("last_progress_to_table", 0);
        double encodeSeconds;
        long shardBytes;
        long modelBytes;
        double clusterStart;
        long c0 = System.nanoTime();
        try (RayCluster cluster = MlpJobs.openCluster()) {
            clusterStart = (System.nanoTime() - c0) / 1e9;
            try (DriverProcess driver = cluster.openDriver()) {
                TrainResult model = Dml.start(TrainSpec.builder().setTable(table.first(50_000))
                        .setColumns(SyntheticFraud.selection())
                        .setModel(ModelSpec.Family.MLP, HIDDEN)
                        .optOptimizer(OptimizerSpec.adam(1e-3f)).optEpochs(1)
                        .opt(TrainOptions.STEPS_PER_EPOCH, 20).optBatchSize(256)
                        .optName("p11").build(), driver)
                        .await(Duration.ofMinutes(5));
                Table[] local = new Table[1];
                long e0 = System.nanoTime();
                List<byte[]> shards = ArrowShards.splitByRows(table,
                        model.columns().featuresOnly(), WORKERS);
                encodeSeconds = (System.nanoTime() - e0) / 1e9;
                shardBytes = shards.stream().mapToLong(b -> b.length).sum();
                shards = null;
                modelBytes = ResultFiles.toBytes(model).length;
                new SideBySide(ROUNDS)
                        .add(subject, round -> {
                            PredictProgress[] last = new PredictProgress[1];
                            long[] at = new long[2]; // first and last progress, arrived here
                            BatchPredictor p = Dml.predict(model).optWorkers(WORKERS)
                                    .optDriver(driver).optProgress(e -> {
                                        last[0] = e;
                                        at[e.rows() == 0 ? 0 : 1] = System.nanoTime();
                                    }).build();
                            long t0 = System.nanoTime();
                            Table scored = p.predict(table);
                            long t3 = System.nanoTime();
                            double s = (t3 - t0) / 1e9;
                            if (local[0] != null && !scored.floatColumn("p1").asList().equals(
                                    local[0].floatColumn("p1").asList())) {
                                same[0] = false;
                            }
                            if (round.timed()) {
                                scoringRate.add(last[0].rowsPerSecond());
                                startup.add(s - last[0].seconds());
                                round.record(beforeScoring, (at[0] - t0) / 1e9);
                                round.record(scoring, (at[1] - at[0]) / 1e9);
                                round.record(afterScoring, (t3 - at[1]) / 1e9);
                            }
                            System.out.printf("  dml predict, 2 workers: %,.0f rows/s (scoring"
                                    + " %,.0f rows/s, %.1f s outside it)%n", ROWS / s,
                                    last[0].rowsPerSecond(), s - last[0].seconds());
                            return s;
                        })
                        .add(peer, round -> {
                            long t0 = System.nanoTime();
                            local[0] = model.predict(table);
                            double s = (System.nanoTime() - t0) / 1e9;
                            System.out.printf("  TrainResult.predict: %,.0f rows/s%n", ROWS / s);
                            return s;
                        })
                        .run();
            }
        }
        double ratio = peer.medianSeconds() / subject.medianSeconds();
        System.out.printf("P11: dml %,.0f rows/s, local %,.0f rows/s, ratio %.3f (goal %.1f)%n",
                ROWS / subject.medianSeconds(), ROWS / peer.medianSeconds(), ratio, GOAL);
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP 31-256-256-2 (ReLU), softmax; trained 20 steps (Adam) on the"
                + " first 50,000 rows");
        setup.put("data", String.format("SyntheticFraud.generate(%d, 11): %,d rows x 31 float"
                + " features (a label column beside, ignored)", ROWS, ROWS));
        setup.put("cluster", "embedded Ray head, 2 CPUs; workers with 1 CPU and 1 PyTorch"
                + " thread each; cluster start " + TrialTimes.round(clusterStart, 1) + " s, once");
        setup.put("predictions_equal_local", same[0] ? "bitwise, every round" : "not bitwise"
                + " (float rounding of other batch sizes)");
        return new BenchResult("P11", GOAL, command)
                .setRatio(ratio)
                .put("ratio_is", "median(local seconds) / median(dml seconds) for the same"
                        + " table: dml rows/s over local rows/s")
                .put("subject", "Dml.predict(model).optWorkers(2).optDriver(driver).build()"
                        + ".predict(table), timed whole: encode, worker start, ship, score, ship"
                        + " back, assemble the input's columns and the predictions")
                .put("peer", "model.predict(table) in the bench JVM (TableArrays.openFeatures,"
                        + " batches of 4096, 1 PyTorch thread)")
                .put("setup", setup)
                .put("method", "one process; " + ROUNDS.describe()
                        + " alternating the two (SideBySide); a full GC before every trial;"
                        + " medians")
                .put("machine", Machine.describe())
                .put("load_average_1min", List.of(load0, MlpJobs.loadAverage()))
                .put("subject_seconds", round(subject.seconds()))
                .put("peer_seconds", round(peer.seconds()))
                .put("subject_rows_per_s", ROWS / subject.medianSeconds())
                .put("peer_rows_per_s", ROWS / peer.medianSeconds())
                .put("subject_scoring_rows_per_s", scoringRate)
                .put("subject_scoring_rows_per_s_is", "rows over the time from the first slice"
                        + " queued to the last slice back, from the workers' progress")
                .put("subject_seconds_outside_scoring", startup)
                .put("subject_parts_median_s", Map.of(
                        beforeScoring.name(), TrialTimes.round(beforeScoring.medianSeconds(), 3),
                        scoring.name(), TrialTimes.round(scoring.medianSeconds(), 3),
                        afterScoring.name(), TrialTimes.round(afterScoring.medianSeconds(), 3)))
                .put("subject_parts_are", "seen from the bench JVM: call to the first progress"
                        + " event (encode, send to the driver, start 2 worker JVMs, send and open"
                        + " the model and the shards); first to last progress (scoring);"
                        + " last progress to the returned table (scores back to the kernel,"
                        + " the input copied and the prediction columns added)")
                .put("encode_2_shards_s", TrialTimes.round(encodeSeconds, 3))
                .put("shard_bytes", shardBytes)
                .put("model_bytes", modelBytes);
    }

    private static List<Double> round(double[] seconds) {
        List<Double> out = new ArrayList<>();
        for (double s : seconds) {
            out.add(TrialTimes.round(s, 3));
        }
        return out;
    }
}
