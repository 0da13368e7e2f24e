package dev.dml.bench;

import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.tune.TuneResult;
import dev.dml.ray.tune.Tuner;
import dev.dml.tune.Trial;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * T1: ASHA against the full grid on the same search space, side by side in one run, both
 * through {@code Dml.tune}: a Fashion-MNIST MLP over {@link #LRS} x {@link #HIDDEN} (12
 * configurations), {@link #EPOCHS} epochs, ranked by validation accuracy. The ratio is the
 * compute ASHA spent over the grid's, in worker-seconds (each epoch's seconds times its
 * workers; goal at most 0.4); beside it, the best validation accuracy each found (goal: ASHA
 * within 0.5 points of the grid). Both sweeps run {@link #CONCURRENT} trials at a time in the
 * grid's order on one driver, so their epochs share the cores alike.
 */
final class SweepVersusGrid implements Benchmark {

    static final double GOAL = 0.4;
    static final double ACCURACY_POINTS = 0.5;
    static final int ROWS = 12_000;
    static final double VALIDATION = 0.2;
    static final int EPOCHS = 9;
    static final int GRACE = 1;
    static final int REDUCTION = 3;
    static final int BATCH = 64;
    static final String LRS = "1e-4|3e-4|1e-3|3e-3";
    static final String HIDDEN = "32|128|256,128";
    static final int CONCURRENT = 2;

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("T1");
        Table train = MlpJobs.table(ROWS);
        TrainSpec base = TrainSpec.builder().setTable(train).setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.MLP, 64).optEpochs(EPOCHS).optBatchSize(BATCH)
                .optValidationFraction(VALIDATION).optCpusPerWorker(1).optSeed(MlpJobs.SEED)
                .optName("t1").build();
        String loadBefore = loadAverage();
        TuneResult asha;
        TuneResult grid;
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            asha = sweep(base, driver, true);
            grid = sweep(base, driver, false);
        }
        double ashaBest = asha.bestTrial().orElseThrow().last();
        double gridBest = grid.bestTrial().orElseThrow().last();
        double points = 100 * (gridBest - ashaBest);
        double ratio = asha.workerSeconds() / grid.workerSeconds();
        boolean accuracyMet = points <= ACCURACY_POINTS;
        System.out.printf("T1: ASHA spent %.3f of the grid's worker-seconds (%.0f s / %.0f s);"
                + " best val_accuracy %.4f vs %.4f (%.2f points)%n", ratio,
                asha.workerSeconds(), grid.workerSeconds(), ashaBest, gridBest, points);
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP 784-H-10 (ReLU), Adam; H and lr varied");
        setup.put("space", "lr " + LRS + " x hidden " + HIDDEN + ": 12 configurations, the"
                + " grid's order (lr slowest)");
        setup.put("data", "Fashion-MNIST: the first " + ROWS + " training images, "
                + Math.round(VALIDATION * 100) + "% held out for validation (the same split"
                + " for every trial)");
        setup.put("job", "1 worker (1 CPU), batch " + BATCH + ", " + EPOCHS + " epochs per"
                + " trial unless stopped; " + CONCURRENT + " trials at a time; embedded Ray head"
                + " with 2 CPUs,"
                + " one driver for both sweeps");
        setup.put("asha", "grace " + GRACE + ", reduction " + REDUCTION + ": rungs at 1 and 3"
                + " epochs, on val_accuracy");
        return new BenchResult("T1", GOAL, command)
                .setRatio(ratio)
                .optSmallerIsBetter()
                .put("ratio_is", "worker-seconds ASHA spent / worker-seconds the full grid"
                        + " spent (each epoch's seconds x its workers, summed over trials)")
                .put("accuracy_goal", "ASHA's best val_accuracy within " + ACCURACY_POINTS
                        + " points of the grid's best")
                .put("asha_best_val_accuracy", TrialTimes.round(ashaBest, 4))
                .put("grid_best_val_accuracy", TrialTimes.round(gridBest, 4))
                .put("accuracy_points_below_grid", TrialTimes.round(points, 2))
                .put("accuracy_goal_met", accuracyMet)
                .put("asha_worker_seconds", TrialTimes.round(asha.workerSeconds(), 1))
                .put("grid_worker_seconds", TrialTimes.round(grid.workerSeconds(), 1))
                .put("asha_epochs", epochs(asha))
                .put("grid_epochs", epochs(grid))
                .put("asha_wall_seconds", TrialTimes.round(asha.wallSeconds(), 1))
                .put("grid_wall_seconds", TrialTimes.round(grid.wallSeconds(), 1))
                .put("setup", setup)
                .put("load_average", "1/5/15-minute load on 2 cores: " + loadBefore
                        + " before, " + loadAverage() + " after")
                .put("note", System.getProperty("dml.bench.note", ""))
                .put("asha_sweep", asha.id())
                .put("grid_sweep", grid.id())
                .put("asha_trials", rows(asha))
                .put("grid_trials", rows(grid));
    }

    private static TuneResult sweep(TrainSpec base, DriverProcess driver, boolean asha) {
        Tuner.Builder b = Dml.tune(base).optSpace(TrainOptions.LR, LRS)
                .optSpace(TrainOptions.HIDDEN, HIDDEN).optSearch("grid")
                .optMetric("val_accuracy").optConcurrent(CONCURRENT).optDriver(driver);
        if (asha) {
            b.optAsha(GRACE, REDUCTION);
        }
        TuneResult r = b.build().run();
        System.out.println((asha ? "ASHA" : "grid") + " " + r.id() + ":");
        System.out.println(r.table().print());
        return r;
    }

    /** The machine's load averages, as /proc/loadavg gives them; other sessions share it. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static int epochs(TuneResult r) {
        return r.ranked().stream().mapToInt(Trial::epochs).sum();
    }

    /** Every trial's row, best first. */
    private static List<Map<String, Object>> rows(TuneResult r) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Trial t : r.ranked()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("trial", t.id());
            row.put("lr", t.options().get(TrainOptions.LR));
            row.put("hidden", t.options().get(TrainOptions.HIDDEN));
            row.put("val_accuracy", TrialTimes.round(t.last(), 4));
            row.put("epochs", t.epochs());
            row.put("status", t.status().word());
            row.put("worker_seconds", TrialTimes.round(t.workerSeconds(), 2));
            List<Double> curve = new ArrayList<>();
            t.curve().forEach(p -> curve.add(TrialTimes.round(p[1], 4)));
            row.put("val_accuracy_by_epoch", curve);
            out.add(row);
        }
        return out;
    }
}
