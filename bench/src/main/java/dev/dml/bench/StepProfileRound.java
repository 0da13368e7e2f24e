package dev.dml.bench;

import dev.dml.events.EpochMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.train.TrainSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * One untimed round that shows where a step's time goes, in a 1-worker job and alone: the job's
 * worker JVM runs under a flight recording (the JVM option below) and its threads' CPU is read
 * from {@code /proc} at the end of the first and the last epoch; the step alone runs in this JVM
 * under a recording of its own. {@link StepPhases} turns each recording into milliseconds per
 * phase, scaled to the side's measured step time.
 */
final class StepProfileRound {

    private static final java.time.Duration DUMP_WAIT = java.time.Duration.ofSeconds(60);

    private StepProfileRound() {}

    /**
     * Runs the job once with a recording, and the peer once with another.
     *
     * @param spec the job (1 worker)
     * @param peer the step alone, on the same rows
     * @param steady the steps of epochs 2.. on
     * @param epochs the job's epochs
     * @return the two sides' phases and the worker's CPU by thread kind
     */
    static Map<String, Object> run(TrainSpec spec, MlpJobs.Peer peer, DriverProcess driver,
            int steady, int epochs) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("dml-p15-");
        try {
            Path workerJfr = dir.resolve("worker.jfr");
            TrainSpec profiled = spec.toBuilder().addWorkerJvmOption(
                    "-XX:StartFlightRecording=name=dml-p15,settings=profile").build();
            // Ray ends the worker JVM without an orderly exit: the recording is dumped with
            // jcmd at the end of the last epoch but one, while the worker still lives
            ThreadReadings threads = new ThreadReadings(epochs, workerJfr);
            MlpJobs.JobRun j = MlpJobs.runJob(profiled, driver, threads);
            double jobMs = j.steadySeconds * 1e3 / steady;
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("step_ms", TrialTimes.round(jobMs, 2));
            boolean dumped = waitFor(workerJfr);
            job.put("phases_ms", dumped
                    ? StepPhases.millis(StepPhases.samples(workerJfr), jobMs)
                    : "the worker's recording was not written within " + DUMP_WAIT);
            if (dumped) {
                job.put("recording", StepPhases.contents(workerJfr));
            }
            job.put("worker_cpu_percent_by_thread", threads.percent());
            job.put("page_faults_per_step", threads.faultsFirst < 0 || threads.faultsLast < 0
                    ? "not read" : (threads.faultsLast - threads.faultsFirst) / steady);

            Path peerJfr = dir.resolve("alone.jfr");
            double[] s;
            try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
                r.start();
                s = peer.run(new float[1]);
                r.stop();
                r.dump(peerJfr);
            } catch (java.text.ParseException e) {
                throw new IllegalStateException(e);
            }
            double t = 0;
            for (int e = 1; e < s.length; e++) {
                t += s[e];
            }
            double aloneMs = t * 1e3 / steady;
            Map<String, Object> alone = new LinkedHashMap<>();
            alone.put("step_ms", TrialTimes.round(aloneMs, 2));
            alone.put("phases_ms", StepPhases.millis(StepPhases.samples(peerJfr), aloneMs));
            alone.put("page_faults_per_step", peer.steadyFaults / steady);

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("what", "one untimed round under flight recordings (JFR 'profile' settings:"
                    + " execution and native-method samples of the stepping thread, put in the"
                    + " phase of their innermost known frame); ms = share of samples x the"
                    + " round's measured step time");
            out.put("job", job);
            out.put("alone", alone);
            return out;
        } finally {
            try (var files = Files.walk(dir)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** jcmd writes the recording while the job goes on. */
    private static boolean waitFor(Path jfr) throws InterruptedException {
        long end = System.nanoTime() + DUMP_WAIT.toNanos();
        long size = -1;
        while (System.nanoTime() < end) {
            try {
                long now = Files.size(jfr);
                if (now > 0 && now == size) {
                    return true; // the size settled: the dump is complete
                }
                size = now;
            } catch (IOException notYet) {
                size = -1;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** Reads the worker's threads at the end of epoch 1 and of the last epoch. */
    private static final class ThreadReadings implements ProgressListener {
        private final int epochs;
        private long pid = -1;
        private Map<String, Long> first;
        private Map<String, Long> last;
        private long firstNanos;
        private long lastNanos;
        private long faultsFirst = -1;
        private long faultsLast = -1;
        private final Path jfr;

        ThreadReadings(int epochs, Path jfr) {
            this.epochs = epochs;
            this.jfr = jfr;
        }

        @Override
        public void onStart(List<WorkerInfo> workers) {
            pid = workers.get(0).pid();
        }

        @Override
        public void onEpoch(EpochMetrics e) {
            if (e.epoch() == 1) {
                faultsFirst = ThreadCpu.minorFaults(pid);
                first = ThreadCpu.read(pid);
                firstNanos = System.nanoTime();
            } else if (e.epoch() == epochs - 1) {
                dump();
            } else if (e.epoch() == epochs) {
                faultsLast = ThreadCpu.minorFaults(pid);
                last = ThreadCpu.read(pid);
                lastNanos = System.nanoTime();
            }
        }

        private void dump() {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            try {
                Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "JFR.dump",
                        "name=dml-p15", "filename=" + jfr).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (IOException e) {
                System.out.println("P15: jcmd could not dump the worker's recording: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        Object percent() {
            if (first == null || last == null || first.isEmpty()) {
                return "not read: the worker's /proc entry was not visible";
            }
            return ThreadCpu.percentByKind(first, last, (lastNanos - firstNanos) / 1e9);
        }
    }
}
