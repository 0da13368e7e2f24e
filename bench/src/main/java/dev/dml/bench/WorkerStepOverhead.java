package dev.dml.bench;

import dev.dml.events.StepPhase;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * P15: what dml's own code around a worker's step costs. A 1-worker job's wall time per steady
 * step (the driver's epoch times, so its share counts) over the same step alone: the same
 * {@code ModelStage.trainBatch} + {@code step} on the same rows in this JVM, with no Ray, no
 * driver and no data path around it ({@link MlpJobs.Peer}). The CNN and the MLP of P3, batch
 * 128; the larger of the two ratios is the result (smaller is better, goal {@value #GOAL}).
 *
 * <p>Rounds alternate the job and the step alone for each model ({@link SideBySide}), so both
 * see the same machine. Each side's first epoch is its warm-up. An untimed last round records
 * where the time goes on each side ({@link StepProfileRound}).
 */
final class WorkerStepOverhead implements Benchmark {

    static final double GOAL = 1.1;
    static final int BATCH = 128;
    static final int STEPS_PER_EPOCH = 50;
    static final int EPOCHS = 4;
    static final Rounds ROUNDS = new Rounds(1, 3);

    /**
     * One model's 1-worker job (its samples are the job's seconds), the same step alone beside
     * it, and the job's split of a step.
     */
    private static final class Model extends JobCase {
        final TrialTimes alone;
        final List<Double> cpu = new ArrayList<>();
        /** Each timed round's phases: the job's rank 0 and the step alone. */
        final List<double[]> jobPhases = new ArrayList<>();
        final List<double[]> alonePhases = new ArrayList<>();
        /** The same model on 2 workers, each a batch a step: context, not the ratio. */
        final TrainSpec twoSpec;
        final TrialTimes two;
        final List<double[][]> twoPhases = new ArrayList<>();
        final List<Double> twoComm = new ArrayList<>();
        Map<String, Object> profile;

        Model(String name, Table table, boolean cnn) {
            super(name, cnn ? "CNN" : "MLP", spec(table.first(BATCH * STEPS_PER_EPOCH), 1,
                    name, cnn));
            requireStepsPerEpoch(name, spec, STEPS_PER_EPOCH);
            this.alone = new TrialTimes(name + "_alone", 0);
            this.twoSpec = spec(table, 2, name + "-2w", cnn);
            requireStepsPerEpoch(name, twoSpec, STEPS_PER_EPOCH);
            this.two = new TrialTimes(name + "_2w", 0);
        }
    }

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("P15");
        Table table = MlpJobs.table(2 * BATCH * STEPS_PER_EPOCH);
        int steady = (EPOCHS - 1) * STEPS_PER_EPOCH;
        List<Model> models = List.of(new Model("cnn", table, true),
                new Model("mlp", table, false));
        double load0 = MlpJobs.loadAverage();
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            SideBySide run = new SideBySide(ROUNDS);
            List<MlpJobs.Peer> peers = new ArrayList<>();
            try {
                for (Model m : models) {
                    MlpJobs.Peer peer = new MlpJobs.Peer(m.spec);
                    peers.add(peer);
                    run.add(m.samples, round -> {
                        MlpJobs.JobRun j = MlpJobs.runJob(m.spec, driver);
                        if (round.timed()) {
                            m.keepStep(j);
                            m.driverMs.add(j.driverMsPerStep(steady));
                            m.cpu.add(java.util.Arrays.stream(j.cpuPercent).average()
                                    .orElse(Double.NaN));
                            m.jobPhases.add(j.phaseMs[0]);
                        }
                        System.out.printf("P15 %s job:   %.2f ms/step%n", m.name,
                                j.steadySeconds * 1e3 / steady);
                        return j.steadySeconds;
                    });
                    run.add(m.alone, round -> {
                        double[] s = peer.run(new float[1]);
                        double t = 0;
                        for (int e = 1; e < s.length; e++) {
                            t += s[e];
                        }
                        if (round.timed()) {
                            m.alonePhases.add(peer.steadyClock);
                        }
                        System.out.printf("P15 %s alone: %.2f ms/step%n", m.name,
                                t * 1e3 / steady);
                        return t;
                    });
                    run.add(m.two, round -> {
                        MlpJobs.JobRun j = MlpJobs.runJob(m.twoSpec, driver);
                        if (round.timed()) {
                            m.twoPhases.add(j.phaseMs);
                            m.twoComm.add(j.stepCommMs);
                        }
                        System.out.printf("P15 %s 2 workers: %.2f ms/step%n", m.name,
                                j.steadySeconds * 1e3 / steady);
                        return j.steadySeconds;
                    });
                }
                run.run();
                for (int i = 0; i < models.size(); i++) {
                    Model m = models.get(i);
                    m.profile = StepProfileRound.run(m.spec, peers.get(i), driver,
                            steady, EPOCHS);
                }
            } finally {
                peers.forEach(MlpJobs.Peer::close);
            }
        }
        double ratio = 0;
        Map<String, Object> each = new LinkedHashMap<>();
        for (Model m : models) {
            double r = m.samples.medianSeconds() / m.alone.medianSeconds();
            ratio = Math.max(ratio, r);
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("ratio", TrialTimes.round(r, 4));
            json.put("job_ms_per_step",
                    TrialTimes.round(m.samples.medianSeconds() * 1e3 / steady, 2));
            json.put("alone_ms_per_step",
                    TrialTimes.round(m.alone.medianSeconds() * 1e3 / steady, 2));
            json.put("job_seconds", m.samples.seconds());
            json.put("alone_seconds", m.alone.seconds());
            json.put("compute_ms", MlpJobs.series("the worker's compute per step"
                    + " (StepMetrics): batch, forward, backward, optimizer", m.compute, 2));
            json.put("all_reduce_ms", MlpJobs.series("the worker's all-reduce per step",
                    m.comm, 2));
            json.put("driver_ms", MlpJobs.series("wall time per step beyond the worker's compute"
                    + " and all-reduce: calls, snapshots, reports", m.driverMs, 2));
            json.put("worker_cpu_percent", MlpJobs.series("the worker JVM's CPU, last report",
                    m.cpu, 1));
            json.put("phases_ms", phases(m));
            json.put("two_workers", twoWorkers(m, steady));
            json.put("profile", m.profile);
            each.put(m.name, json);
            System.out.printf("P15 %s: job / alone = %.3f%n", m.name, r);
        }
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("data", "Fashion-MNIST train, first " + BATCH * STEPS_PER_EPOCH + " rows");
        setup.put("batch", BATCH);
        setup.put("epochs", EPOCHS + " of " + STEPS_PER_EPOCH + " steps; epochs 2.." + EPOCHS
                + " timed");
        setup.put("pytorch_threads", "1 in the bench JVM and in the worker");
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());
        return new BenchResult("P15", GOAL, command).optSmallerIsBetter().setRatio(ratio)
                .put("ratio_is", "the larger over the CNN and the MLP of median(1-worker job"
                        + " seconds) / median(step-alone seconds) for the same steady steps;"
                        + " smaller is better")
                .put("subject", "Dml.start(spec, driver).await(), 1 worker, optCpusPerWorker(1),"
                        + " one embedded Ray head (2 CPUs) and one driver for the whole run")
                .put("peer", "the same ModelStage.trainBatch + step on the same rows in the"
                        + " bench JVM, contiguous batches, no Ray")
                .put("method", ROUNDS.describe() + " alternating job and step alone for each"
                        + " model (SideBySide); medians")
                .put("setup", setup)
                .put("models", each);
    }

    /** The medians over the timed rounds of each phase, on each side. */
    private static Map<String, Object> phases(Model m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("what", "ms per steady step in each phase (dev.dml.events.StepPhase), medians"
                + " of the timed rounds; the rest of a step is in no phase");
        out.put("job", medianParts(m.jobPhases));
        out.put("alone", medianParts(m.alonePhases));
        return out;
    }

    /** The 2-worker job beside the step alone: each rank's phases and the all-reduce. */
    private static Map<String, Object> twoWorkers(Model m, int steady) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ms_per_step", TrialTimes.round(m.two.medianSeconds() * 1e3 / steady, 2));
        out.put("over_alone", TrialTimes.round(m.two.medianSeconds()
                / m.alone.medianSeconds(), 4));
        out.put("seconds", m.two.seconds());
        out.put("all_reduce_ms", MlpJobs.series("the slowest rank's exposed all-reduce per"
                + " step", m.twoComm, 2));
        for (int r = 0; r < 2; r++) {
            int rank = r;
            out.put("rank" + r + "_phases_ms", medianParts(m.twoPhases.stream()
                    .map(p -> p[rank]).toList()));
        }
        return out;
    }

    private static Map<String, Double> medianParts(List<double[]> rounds) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (StepPhase p : StepPhase.values()) {
            double[] v = rounds.stream().mapToDouble(a -> a[p.ordinal()]).sorted().toArray();
            out.put(MlpJobs.phaseName(p), v.length == 0 ? Double.NaN
                    : TrialTimes.round(v[v.length / 2], 3));
        }
        return out;
    }

    private static TrainSpec spec(Table table, int workers, String name, boolean cnn) {
        var b = MlpJobs.builder(table, workers, BATCH, EPOCHS, "p15-" + name);
        if (cnn) {
            b.setModel(ModelSpec.Family.CNN);
        }
        return b.build();
    }
}
