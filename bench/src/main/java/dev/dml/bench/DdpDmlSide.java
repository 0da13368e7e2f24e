package dev.dml.bench;

import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.Predictions;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.ray.train.TrainingListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import tech.tablesaw.api.Table;

/**
 * P3's dml side: one {@code Dml.start(spec, driver)} job of a {@link DdpJob}, timed by a
 * listener in this JVM. A step's end is when its metrics arrive here; the first step's start is
 * the arrival of epoch 1's metrics minus the epoch's own seconds (both arrive alike late).
 *
 * <p>A trajectory run also writes a checkpoint every {@link DdpJob#EVAL_EVERY} steps; the
 * listener copies each one as it appears, and after the job each is loaded into a replica here
 * and scored on the test split. Checkpoints cost time, so only untimed runs write them.
 */
final class DdpDmlSide {

    private final Table train;
    private final HeldOut test;
    private final List<String> workerJvmOptions;

    /**
     * @param train the first rows of the training split, at least the setting's rows
     * @param test the test split and its labels
     * @param workerJvmOptions extra worker JVM options, e.g. a flight recording
     */
    DdpDmlSide(Table train, HeldOut test, List<String> workerJvmOptions) {
        this.train = train;
        this.test = test;
        this.workerJvmOptions = workerJvmOptions;
    }

    /** Runs the setting's job once; a trajectory run also scores the test split. */
    DdpRun run(DdpJob s, DriverProcess driver, boolean trajectory) throws IOException {
        Path ckDir = trajectory ? Files.createTempDirectory("dml-p3-") : null;
        try {
            Clock clock = new Clock(s.steps(), ckDir);
            TrainSpecBuilder b = MlpJobs.builder(train.first(s.rows()), s.workers(),
                    DdpJob.BATCH, DdpJob.EPOCHS, "p3-" + s.name())
                    .addListener(clock)
                    // the PyTorch side reads each shard's rows in order, as --no-shuffle does
                    .optShuffle(false);
            if (s.cnn()) {
                b.setModel(ModelSpec.Family.CNN);
            }
            if (trajectory) {
                b.optCheckpoints(ckDir, DdpJob.EVAL_EVERY);
            }
            workerJvmOptions.forEach(b::addWorkerJvmOption);
            TrainSpec spec = b.build();
            clock.t0 = System.nanoTime();
            MlpJobs.JobRun j = MlpJobs.runJob(spec, driver);
            Map<String, Double> parts = new LinkedHashMap<>();
            parts.put("compute_ms", j.stepComputeMs);
            parts.put("all_reduce_ms", j.stepCommMs);
            parts.put("driver_ms", j.driverMsPerStep(
                    (DdpJob.EPOCHS - 1) * DdpJob.STEPS_PER_EPOCH));
            parts.put("worker_cpu_percent", Arrays.stream(j.cpuPercent).average().orElse(0));
            parts.putAll(MlpJobs.phaseParts(j.phaseMs[0])); // rank 0's, as the PyTorch side's
            Map<Integer, Double> acc = trajectory ? score(spec, clock) : Map.of();
            return new DdpRun(clock.epoch1End - clock.epoch1Seconds, clock.at, j.finalLoss, acc,
                    parts);
        } finally {
            if (ckDir != null) {
                try (Stream<Path> files = Files.walk(ckDir)) { // deepest first
                    for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(f);
                    }
                }
            }
        }
    }

    private Map<Integer, Double> score(TrainSpec spec, Clock clock) {
        Map<Integer, Double> acc = new TreeMap<>();
        for (int step = DdpJob.EVAL_EVERY; step <= clock.at.length - 1;
                step += DdpJob.EVAL_EVERY) {
            if (!clock.states.containsKey((long) step)) {
                throw new IllegalStateException("The checkpoint of step " + step + " was not"
                        + " copied" + (clock.error != null ? ": " + clock.error : "") + ".");
            }
        }
        try (ModelStage r = ModelStage.openWhole(spec.model(), spec.optimizer(),
                "bench/p3-score")) {
            for (Map.Entry<Long, byte[]> e : clock.states.entrySet()) {
                r.loadState(e.getValue());
                int[] predicted = Predictions.classes(r, test.table(),
                        spec.columns().featuresOnly());
                acc.put(e.getKey().intValue(), test.accuracy(predicted));
            }
        }
        return acc;
    }

    /** Times the steps as their metrics arrive, and copies checkpoints as they appear. */
    private static final class Clock implements TrainingListener {
        final double[] at;
        final Path ckDir;
        final Map<Long, byte[]> states = new TreeMap<>();
        final Set<Path> seen = new HashSet<>();
        long t0;
        double epoch1End = Double.NaN;
        double epoch1Seconds = Double.NaN;
        String error;

        Clock(int steps, Path ckDir) {
            this.at = new double[steps + 1];
            Arrays.fill(at, Double.NaN);
            this.ckDir = ckDir;
        }

        @Override
        public void onStep(StepMetrics m) {
            at[(int) m.step()] = (System.nanoTime() - t0) / 1e9;
            if (ckDir != null && m.step() % DdpJob.EVAL_EVERY == 0) {
                copyCheckpoints();
            }
        }

        @Override
        public void onEpoch(EpochMetrics e) {
            if (e.epoch() == 1) {
                epoch1End = (System.nanoTime() - t0) / 1e9;
                epoch1Seconds = e.seconds();
            }
        }

        /** The job keeps only the newest few files, so each is read soon after it appears. */
        private void copyCheckpoints() {
            try (Stream<Path> files = Files.walk(ckDir)) { // the job's folder is under ckDir
                for (Path f : files.toList()) {
                    if (f.getFileName().toString().endsWith(".dml") && seen.add(f)) {
                        Checkpoints.Checkpoint c = Checkpoints.read(f);
                        states.put(c.step(), c.states().get(0));
                    }
                }
            } catch (IOException e) {
                error = e.toString();
                throw new UncheckedIOException(e);
            }
        }
    }
}
