package dev.dml.bench;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * P3: dml against what users would run otherwise, PyTorch DistributedDataParallel (gloo), in
 * one run on one machine (goal: dml's throughput at least DDP's).
 *
 * <p>Both sides train the same MLP and the same small CNN ({@link DdpJob}) on the same first
 * rows of Fashion-MNIST (Debian's files, read by both), with the same batch per worker, Adam
 * (lr 1e-3), initial weights (bitwise alike: the Python script replays dml's seeded
 * initialisation), data order and steps, and one intra-op thread per worker: (a) dml jobs on one
 * embedded Ray head with 2 CPUs and one driver; (b) {@code bench/torch/p3_ddp.py}, 2 processes
 * joined by gloo. The same pair with 1 worker against 1 plain PyTorch process separates the
 * engine's cost from the cost of distribution.
 *
 * <p>The warm-up round is the trajectory round: each side scores the test split after every
 * {@value DdpJob#EVAL_EVERY} steps (outside its step times), which gives the step at which
 * it first reaches the target accuracy. Training is deterministic on both sides (the result
 * checks that every timed run ends on the trajectory's loss), so the timed runs reach the target
 * at that same step, and time to accuracy is when they finished it.
 */
final class TorchDdpComparison implements Benchmark {

    static final double GOAL = 1.0;
    static final Rounds ROUNDS = new Rounds(1, 3);
    private static final DdpJob[] SETTINGS = {new DdpJob(false, 2),
        new DdpJob(true, 2), new DdpJob(false, 1), new DdpJob(true, 1)};
    /** Worker JVM options for a profile, e.g. a flight recording; split on spaces. */
    static final String WORKER_OPTIONS = "dml.bench.workerJvmOptions";
    /** Comma-separated setting names to run (e.g. {@code mlp_2w}); empty runs them all. */
    static final String ONLY = "dml.bench.only";

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("P3");
        DdpTorchSide torch = DdpTorchSide.find();
        int rows = 0;
        for (DdpJob s : SETTINGS) {
            rows = Math.max(rows, s.rows());
        }
        Table train = MlpJobs.table(rows);
        HeldOut test = HeldOut.fashionMnist(0);
        String opts = System.getProperty(WORKER_OPTIONS, "").strip();
        DdpDmlSide dml = new DdpDmlSide(train, test,
                opts.isEmpty() ? List.of() : List.of(opts.split(" ")));
        Map<DdpJob, DdpSide[]> sides = new LinkedHashMap<>();
        double load0 = MlpJobs.loadAverage();
        double clusterStart;
        long c0 = System.nanoTime();
        try (RayCluster cluster = MlpJobs.openCluster()) {
            clusterStart = (System.nanoTime() - c0) / 1e9;
            try (DriverProcess driver = cluster.openDriver()) {
                SideBySide run = new SideBySide(ROUNDS);
                for (DdpJob s : settings()) {
                    DdpSide d = new DdpSide(s, "dml", "Dml.start(spec, driver).await(), "
                            + s.workers() + " worker(s) with optCpusPerWorker(1)");
                    DdpSide t = new DdpSide(s, "pytorch", s.workers() > 1
                            ? "DistributedDataParallel, gloo, 2 processes (torch.multiprocessing)"
                            : "one plain PyTorch process");
                    sides.put(s, new DdpSide[] {d, t});
                    run.add(d.samples(), round -> d.record(round,
                            dml.run(s, driver, !round.timed()), MlpJobs.loadAverage()));
                    run.add(t.samples(), round -> t.record(round,
                            torch.run(s, !round.timed()), MlpJobs.loadAverage()));
                }
                run.run();
            }
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        double headline = Double.POSITIVE_INFINITY;
        double any = Double.NaN;
        for (Map.Entry<DdpJob, DdpSide[]> e : sides.entrySet()) {
            DdpJob s = e.getKey();
            Map<String, Object> m = compare(s, e.getValue()[0], e.getValue()[1]);
            settings.put(s.name(), m);
            double r = (double) m.get("throughput_ratio_dml_over_ddp");
            if (s.workers() == 2) {
                headline = Math.min(headline, r);
            }
            any = r;
        }
        // A partial run (-Ddml.bench.only) without 2-worker jobs reports its last ratio.
        headline = Double.isInfinite(headline) ? any : headline;
        System.out.printf("P3: dml / DDP throughput, 2 workers, lower of the two models: %.3f"
                + " (goal %.2f)%n", headline, GOAL);
        return new BenchResult("P3", GOAL, command)
                .setRatio(headline)
                .put("ratio_is", "throughput dml / PyTorch DDP with 2 workers: median(DDP"
                        + " seconds) / median(dml seconds) for the same examples, the lower of"
                        + " the MLP's and the CNN's")
                .put("method", "one process, one Ray cluster and driver; " + ROUNDS.warmups()
                        + " trajectory round (untimed: test accuracy every "
                        + DdpJob.EVAL_EVERY + " steps), then " + ROUNDS.timed() + " timed rounds"
                        + " of all " + 2 * sides.size() + " runs, dml and PyTorch"
                        + " alternating (SideBySide: each round starts one run later); medians")
                .put("setup", setup(torch, load0, clusterStart))
                .put("settings", settings);
    }

    private static List<DdpJob> settings() {
        String only = System.getProperty(ONLY, "").strip();
        List<String> names = only.isEmpty() ? List.of() : List.of(only.split(","));
        List<DdpJob> out = new ArrayList<>();
        for (DdpJob s : SETTINGS) {
            if (names.isEmpty() || names.contains(s.name())) {
                out.add(s);
            }
        }
        if (out.isEmpty()) {
            throw new DmlException("-D" + ONLY + "=" + only + " names none of P3's jobs.",
                    "Name some of mlp_2w, cnn_2w, mlp_1w, cnn_1w, or leave it empty.");
        }
        return out;
    }

    private static Map<String, Object> compare(DdpJob s, DdpSide dml, DdpSide torch) {
        double[] ds = dml.samples().seconds();
        double[] ts = torch.samples().seconds();
        List<Double> paired = new ArrayList<>();
        for (int i = 0; i < ds.length; i++) {
            paired.add(TrialTimes.round(ts[i] / ds[i], 4));
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", s.model());
        m.put("workers", s.workers());
        m.put("rows", s.rows());
        m.put("steps", s.steps());
        m.put("target_accuracy", s.targetAccuracy());
        double tr = torch.samples().medianSeconds() / dml.samples().medianSeconds();
        m.put("throughput_ratio_dml_over_ddp", TrialTimes.round(tr, 4));
        m.put("throughput_paired_ratios", paired);
        m.put("time_to_accuracy_ratio_ddp_over_dml", ratio(torch.trainingToTarget(),
                dml.trainingToTarget()));
        m.put("launch_to_accuracy_ratio_ddp_over_dml", ratio(torch.launchToTarget(),
                dml.launchToTarget()));
        m.put("dml", dml.toJson());
        m.put("pytorch", torch.toJson());
        System.out.printf("  %s: throughput dml/DDP %.3f, time to %.3f DDP/dml %s%n", s.name(),
                tr, s.targetAccuracy(), m.get("time_to_accuracy_ratio_ddp_over_dml"));
        return m;
    }

    /** median(a) / median(b), or null when a side never reached the target. */
    private static Double ratio(List<Double> a, List<Double> b) {
        return a.isEmpty() || b.isEmpty() ? null
                : TrialTimes.round(MlpJobs.median(a) / MlpJobs.median(b), 4);
    }

    private static Map<String, Object> setup(DdpTorchSide torch, double load0,
            double clusterStart) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("data", "Fashion-MNIST (Debian dataset-fashion-mnist): the first rows of the"
                + " training split, contiguous shards per worker, step t of an epoch on rows"
                + " [t*B, (t+1)*B) of each shard; test split (10,000 rows) for accuracy");
        m.put("batch_per_worker", DdpJob.BATCH);
        m.put("steps_per_epoch", DdpJob.STEPS_PER_EPOCH);
        m.put("epochs", DdpJob.EPOCHS);
        m.put("timed_steps", "steps " + (DdpJob.WARM_STEPS + 1) + " to the last");
        m.put("optimizer", "Adam lr " + MlpJobs.LEARNING_RATE + ", betas (0.9, 0.999), eps 1e-8,"
                + " bias-corrected, both sides");
        m.put("init", "dml's ParameterBuffers.initialize: He-uniform from SplittableRandom(seed "
                + MlpJobs.SEED + "), biases 0; replayed bitwise by the Python script");
        m.put("threads", "1 intra-op thread per worker: -Dai.djl.pytorch.num_threads=1;"
                + " torch.set_num_threads(1), OMP_NUM_THREADS=1");
        m.put("dml", "embedded Ray head, optNumCpus(2); workers optCpusPerWorker(1), a fresh"
                + " worker JVM per job; reportEvery 10; times from the listener's arrival times");
        m.put("dml_per_step_is", "StepMetrics of steps 51.., mean per step, median over the timed"
                + " runs: compute = forward + backward + gradient copies + Adam (slowest rank),"
                + " all_reduce = gradient all-reduce incl. waiting (slowest rank), driver = epoch"
                + " time per step minus both");
        m.put("pytorch", "torch " + torch.version() + " (pip, CPU), " + DdpTorchSide.SCRIPT
                + "; DDP defaults (25 MB buckets overlapping backward); times from time.time()"
                + " in rank 0");
        m.put("load_average_1min_at_start", load0);
        m.put("load_average_1min_at_end", MlpJobs.loadAverage());
        m.put("cluster_start_s", TrialTimes.round(clusterStart, 3));
        return m;
    }
}
