package dev.dml.bench;

import dev.dml.DmlException;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.events.EpochMetrics;
import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import dev.dml.events.StepPhase;
import ai.djl.ndarray.NDManager;
import dev.dml.events.ProgressListener;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.NamespacedCluster;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.TableArrays;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.StepClock;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * What P1 and P2 share: the compute-bound job (an MLP 784-1024-1024-10 with Adam on the first
 * rows of Fashion-MNIST), one embedded Ray cluster with a driver for the whole benchmark, and the
 * steady-state measure of a job.
 *
 * <p>A job's first epoch is its warm-up (fresh worker JVMs: JIT, first-touch of the tensors); the
 * steady state is the epochs after it, timed by the driver from the start of an epoch's first
 * step to the end of its last, so it includes the driver's round trips between chunks of steps
 * but not the actor start, the data shipping, {@code init}'s broadcast or the final parameter
 * fetch. Those are reported as {@code startup_s} (job wall time minus all epochs).
 */
final class MlpJobs {

    static final int[] HIDDEN = {1024, 1024};
    static final float LEARNING_RATE = 1e-3f;
    static final long SEED = 11;

    private MlpJobs() {}

    /** Returns whether Debian's Fashion-MNIST is installed. */
    static boolean haveData() {
        return Files.isRegularFile(FashionMnist.DEBIAN_DIR.resolve("train-images-idx3-ubyte.gz"));
    }

    /**
     * Refuses a benchmark that needs Fashion-MNIST where it is not installed.
     *
     * @param id the benchmark's id, as {@code bench/run} takes it
     */
    static void requireData(String id) {
        if (!haveData()) {
            throw new DmlException(id + " needs Fashion-MNIST in " + FashionMnist.DEBIAN_DIR
                    + ".", "Install the Debian package dataset-fashion-mnist (bash bin/install"
                    + " does).");
        }
    }

    /** Returns the first {@code rows} training images as a table. */
    static Table table(int rows) {
        return FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TRAIN, rows)
                .toTable();
    }

    /** Builds the job: one spec reused by every repetition. */
    static TrainSpec spec(Table table, int workers, int batch, int epochs, String name) {
        return builder(table, workers, batch, epochs, name).build();
    }

    /** The job's builder, for benchmarks that change the model or add listeners. */
    static TrainSpecBuilder builder(Table table, int workers, int batch, int epochs,
            String name) {
        return TrainSpec.builder()
                .setTable(table)
                .setColumns(FashionMnist.selection())
                .setModel(ModelSpec.Family.MLP, HIDDEN)
                .optEpochs(epochs)
                .optBatchSize(batch)
                .optWorkers(workers)
                .optCpusPerWorker(1)
                .optOptimizer(OptimizerSpec.adam(LEARNING_RATE))
                .optSeed(SEED)
                .optName(name);
    }

    /** Opens the embedded head with 2 CPUs (what this machine has). */
    static RayCluster openCluster() {
        return RayCluster.open(ClusterSpec.builder().optNumCpus(2).build());
    }

    /** Opens a cluster on the namespaced nodes' head, which the nodes have already joined. */
    static RayCluster openCluster(NamespacedCluster nodes) {
        return RayCluster.open(ClusterSpec.builder().optAddress(nodes.address()).build());
    }

    /** One dml job's numbers. */
    static final class JobRun {
        double wallSeconds;
        double firstEpochSeconds;
        double steadySeconds;
        long steadyExamples;
        double stepComputeMs;
        double stepCommMs;
        double stepWorkerMs;
        long allReduceBytes;
        long interNodeBytes;
        List<WorkerInfo> workers;
        float finalLoss;
        double[] cpuPercent;
        /** Each rank's milliseconds per steady step in each {@link StepPhase}. */
        double[][] phaseMs;
        /** The job's result, for its parameters. */
        TrainResult result;

        double examplesPerSecond() {
            return steadyExamples / steadySeconds;
        }

        /** Seconds outside the epochs: encoding, actor start, shipping, init, result fetch. */
        double startupSeconds() {
            return wallSeconds - firstEpochSeconds - steadySeconds;
        }

        /** Driver time per steady step beyond the slowest rank's compute + all-reduce. */
        double driverMsPerStep(int steps) {
            return steadySeconds * 1e3 / steps - stepWorkerMs;
        }
    }

    /** Runs one job on the borrowed driver and measures it. */
    static JobRun runJob(TrainSpec spec, DriverProcess driver) {
        return runJob(spec, driver, new ProgressListener() { });
    }

    /** Runs one job, whose progress {@code progress} sees too, and measures it. */
    static JobRun runJob(TrainSpec spec, DriverProcess driver, ProgressListener progress) {
        long t0 = System.nanoTime();
        TrainResult r = TrainJob.start(spec, driver, progress).await();
        double wall = (System.nanoTime() - t0) / 1e9;
        List<EpochMetrics> epochs = r.epochs();
        if (epochs.size() != spec.epochs() || r.stopped()) {
            throw new IllegalStateException("The job ran " + epochs.size() + " of "
                    + spec.epochs() + " epochs" + (r.stopped() ? " and was stopped" : "")
                    + "; see the driver log " + driver.log() + ".");
        }
        JobRun j = new JobRun();
        j.wallSeconds = wall;
        j.firstEpochSeconds = epochs.get(0).seconds();
        for (int e = 1; e < epochs.size(); e++) {
            j.steadySeconds += epochs.get(e).seconds();
        }
        int spe = spec.stepsPerEpoch();
        j.steadyExamples = (long) (epochs.size() - 1) * spe * spec.batchSize() * spec.workers();
        List<StepMetrics> steady = r.steps().subList(spe, r.steps().size());
        double[] compute = new double[steady.size()];
        double[] comm = new double[steady.size()];
        double[] worker = new double[steady.size()];
        for (int i = 0; i < steady.size(); i++) {
            compute[i] = steady.get(i).computeMillis();
            comm[i] = steady.get(i).commMillis();
            worker[i] = steady.get(i).examples() / steady.get(i).examplesPerSecond() * 1e3;
        }
        j.stepComputeMs = mean(compute);
        j.stepCommMs = mean(comm);
        j.stepWorkerMs = mean(worker);
        j.allReduceBytes = steady.get(0).allReduceBytes();
        j.interNodeBytes = steady.get(0).interNodeBytes();
        j.workers = r.workers();
        j.cpuPercent = steady.get(steady.size() - 1).workers().stream()
                .mapToDouble(ProcessSample::cpuPercent).toArray();
        j.phaseMs = phaseMillis(steady);
        j.finalLoss = r.finalLoss();
        j.result = r;
        return j;
    }

    /** Each rank's mean over the steps of the milliseconds its report gave each phase. */
    static double[][] phaseMillis(List<StepMetrics> steps) {
        int ranks = steps.get(0).workers().size();
        StepPhase[] phases = StepPhase.values();
        double[][] ms = new double[ranks][phases.length];
        for (StepMetrics m : steps) {
            for (int r = 0; r < ranks; r++) {
                for (StepPhase p : phases) {
                    ms[r][p.ordinal()] += m.workers().get(r).stepPhaseMillis(p) / steps.size();
                }
            }
        }
        return ms;
    }

    /**
     * One side's phases by name ({@code forward_ms}, ...), as P3 and P15 write them.
     *
     * @param ms milliseconds per step in each {@link StepPhase}, in its order
     * @return the phases, in order
     */
    static Map<String, Double> phaseParts(double[] ms) {
        Map<String, Double> parts = new LinkedHashMap<>();
        for (StepPhase p : StepPhase.values()) {
            parts.put(phaseName(p), ms[p.ordinal()]);
        }
        return parts;
    }

    /** A phase's name in the result files, e.g. {@code forward_ms}. */
    static String phaseName(StepPhase p) {
        return p.name().toLowerCase(java.util.Locale.ROOT) + "_ms";
    }

    /** The peer: the same steps in this JVM, forward/backward then Adam, with no dml around. */
    static final class Peer implements AutoCloseable {
        private final TrainSpec spec;
        private final NDManager manager;
        private final ShardArrays data;
        /** The last run's milliseconds per step after its first epoch, by {@link StepPhase}. */
        double[] steadyClock;
        /** The minor page faults this JVM took in the last run's epochs after the first. */
        long steadyFaults;

        Peer(TrainSpec spec) {
            this.spec = spec;
            this.manager = NDManager.newBaseManager("PyTorch");
            this.data = TableArrays.openArrays(spec.trainTable(), spec.columns(), manager);
        }

        /** Trains {@code epochs} epochs from a fresh replica; returns each epoch's seconds. */
        double[] run(float[] finalLoss) {
            int b = spec.batchSize();
            int spe = spec.stepsPerEpoch();
            double[] seconds = new double[spec.epochs()];
            steadyClock = null;
            try (ModelStage r = ModelStage.openWhole(spec.model(), spec.optimizer(),
                    "bench/peer")) {
                float loss = Float.NaN;
                for (int e = 0; e < spec.epochs(); e++) {
                    long t0 = System.nanoTime();
                    long[] clock = r.clock().totals();
                    if (e == 1) {
                        steadyFaults = -ThreadCpu.minorFaults(ProcessHandle.current().pid());
                    }
                    for (int s = 0; s < spe; s++) {
                        NDIndex rows = new NDIndex("{}:{}", s * b, (s + 1) * b);
                        long t = r.clock().now();
                        try (NDArray x = data.features().get(rows);
                                NDArray y = data.labels().get(rows)) {
                            r.clock().lap(StepPhase.BATCH, t);
                            loss = r.trainBatch(x, y);
                        }
                        r.step();
                    }
                    seconds[e] = (System.nanoTime() - t0) / 1e9;
                    if (e > 0) {
                        steadyClock = add(steadyClock, StepClock.perStep(clock,
                                r.clock().totals(), (long) spe * (spec.epochs() - 1)));
                    }
                }
                steadyFaults += ThreadCpu.minorFaults(ProcessHandle.current().pid());
                finalLoss[0] = loss;
            }
            return seconds;
        }

        private static double[] add(double[] sum, double[] more) {
            if (sum == null) {
                return more;
            }
            for (int i = 0; i < sum.length; i++) {
                sum[i] += more[i];
            }
            return sum;
        }

        @Override
        public void close() {
            data.close();
            manager.close();
        }
    }

    /** A series of per-repetition values with its median, for the JSON. */
    static Map<String, Object> series(String what, List<Double> values, int decimals) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", what);
        m.put("median", TrialTimes.round(TrialTimes.median(v), decimals));
        List<Double> r = new ArrayList<>();
        for (double x : v) {
            r.add(TrialTimes.round(x, decimals));
        }
        m.put("samples", r);
        return m;
    }

    static double median(List<Double> values) {
        return TrialTimes.median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double mean(double[] v) {
        double s = 0;
        for (double x : v) {
            s += x;
        }
        return v.length == 0 ? Double.NaN : s / v.length;
    }

    /** The 1-minute load average, or -1 where /proc is not readable. */
    static double loadAverage() {
        try {
            String s = Files.readString(java.nio.file.Path.of("/proc/loadavg"));
            return Double.parseDouble(s.trim().split("\\s+")[0]);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }
}
