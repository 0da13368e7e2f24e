package dev.dml.bench;

import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tech.tablesaw.api.Table;

/**
 * M1: the optimizer state one worker holds with {@code --shard-optimizer} (ZeRO-1) over that of
 * the same job unsharded, on 2 workers of a real embedded Ray head, for an MLP of about 20M
 * parameters (784-4096-4096-10) with Adam (goal at most 0.55; about 1/N = 0.5 expected; smaller
 * is better). The bytes are what each worker reports of its optimizer's state arrays ({@link
 * ProcessSample#optimizerStateBytes}) in its last step; the larger worker's counts. A third job
 * shards the gradients too ({@code --shard-gradients}, ZeRO-2, the default 1 MB buckets): its
 * {@code zero2_ratio} is its optimizer state plus gradient buffers ({@link
 * ProcessSample#gradientBufferBytes}) over the unsharded job's (about 0.5 expected with Adam).
 * Step time, the workers' heap and resident memory, and the parameters' agreement are context,
 * measured in the same rounds, which alternate the three jobs.
 */
final class ShardedOptimizerMemory implements Benchmark {

    static final double GOAL = 0.55;
    static final int[] HIDDEN = {4096, 4096};
    /** Batch 64 per worker, 5 steps per epoch, 2 epochs (the first is the warm-up). */
    static final JobSize JOB = new JobSize(64, 5, 2);
    static final Rounds ROUNDS = new Rounds(0, 2);

    @Override
    public BenchResult run(String command) throws Exception {
        MlpJobs.requireData("M1");
        Table table = MlpJobs.table(2 * JOB.rows());
        Side whole = new Side("unsharded", spec(table, 0));
        Side sharded = new Side("sharded", spec(table, 1));
        Side zero2 = new Side("zero2", spec(table, 2));
        double load0 = MlpJobs.loadAverage();
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            new SideBySide(ROUNDS)
                    .add(whole.samples, round -> whole.run(driver))
                    .add(sharded.samples, round -> sharded.run(driver))
                    .add(zero2.samples, round -> zero2.run(driver))
                    .run();
        }
        double ratio = (double) sharded.stateBytes() / whole.stateBytes();
        double zero2Ratio = (double) zero2.heldBytes() / whole.heldBytes();
        boolean same = Arrays.equals(whole.parameters, sharded.parameters);
        boolean same2 = Arrays.equals(whole.parameters, zero2.parameters);
        System.out.printf("M1: optimizer state per worker %d B sharded / %d B unsharded = %.4f"
                + " (goal %.2f); parameters %s%n", sharded.stateBytes(), whole.stateBytes(),
                ratio, GOAL, same ? "bitwise equal" : "DIFFER");
        System.out.printf("M1: optimizer state + gradient buffers per worker %d B ZeRO-2 / %d B"
                + " unsharded = %.4f; parameters %s%n", zero2.heldBytes(), whole.heldBytes(),
                zero2Ratio, same2 ? "bitwise equal" : "DIFFER");
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", whole.spec.model().toString());
        setup.put("parameters", whole.parameters.length);
        setup.put("optimizer", "Adam lr " + MlpJobs.LEARNING_RATE + " (two moments per"
                + " parameter)");
        setup.put("data", "Fashion-MNIST train, first " + table.rowCount() + " rows");
        setup.put("cluster", "embedded Ray head, optNumCpus(2); 2 workers, optCpusPerWorker(1),"
                + " one PyTorch thread each");
        setup.put("batch_per_worker", JOB.batch());
        setup.put("steps_per_epoch", JOB.steps());
        setup.put("epochs", JOB.epochs());
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());
        return new BenchResult("M1", GOAL, command).optSmallerIsBetter()
                .setRatio(ratio)
                .put("ratio_is", "bytes of optimizer state arrays held by the larger worker,"
                        + " --shard-optimizer / unsharded, as each worker reports it")
                .put("parameters_bitwise_equal", same)
                .put("zero2_ratio", TrialTimes.round(zero2Ratio, 4))
                .put("zero2_ratio_is", "bytes of optimizer state plus gradient buffers held by"
                        + " the larger worker, --shard-gradients (ZeRO-2) / unsharded")
                .put("zero2_parameters_bitwise_equal", same2)
                .put("method", "one cluster and driver; " + ROUNDS.timed() + " rounds that"
                        + " alternate the three jobs (SideBySide); each job's first epoch is its"
                        + " warm-up; step times over the epochs after it, medians")
                .put("setup", setup)
                .put("unsharded", whole.toJson())
                .put("sharded", sharded.toJson())
                .put("zero2", zero2.toJson());
    }

    /** The job unsharded ({@code zero} 0), with ZeRO-1 or with ZeRO-2. */
    private static TrainSpec spec(Table table, int zero) {
        TrainSpecBuilder b = MlpJobs.builder(table, 2, JOB.batch(), JOB.epochs(),
                zero == 0 ? "m1-whole" : zero == 1 ? "m1-sharded" : "m1-zero2")
                .setModel(ModelSpec.Family.MLP, HIDDEN);
        // ZeRO-2 implies the sharded optimizer: turning it off beside it is refused
        return (zero == 2 ? b.optShardGradients(true) : b.optShardOptimizer(zero == 1)).build();
    }

    /** One of the three jobs and what it measured. */
    private static final class Side extends JobCase {
        final List<Double> stepMs = new ArrayList<>();
        long[] state = new long[0];
        long[] gradients = new long[0];
        long[] heap = new long[0];
        long[] rss = new long[0];
        float[] parameters;

        Side(String name, TrainSpec spec) {
            super(name, name + " optimizer state", spec);
            requireStepsPerEpoch(name, spec, JOB.steps());
        }

        double run(DriverProcess driver) {
            MlpJobs.JobRun j = MlpJobs.runJob(spec, driver);
            List<StepMetrics> steps = j.result.steps();
            List<ProcessSample> last = steps.get(steps.size() - 1).workers();
            state = last.stream().mapToLong(ProcessSample::optimizerStateBytes).toArray();
            gradients = last.stream().mapToLong(ProcessSample::gradientBufferBytes).toArray();
            heap = last.stream().mapToLong(ProcessSample::heapBytes).toArray();
            rss = last.stream().mapToLong(ProcessSample::rssBytes).toArray();
            parameters = j.result.parameters();
            double ms = j.steadySeconds * 1e3 / steadySteps;
            stepMs.add(ms);
            comm.add(j.stepCommMs);
            System.out.printf("  %-9s %.0f ms a step (reduce %.0f ms); optimizer state %s B,"
                    + " gradient buffers %s B, heap %s MiB%n", name, ms, j.stepCommMs,
                    Arrays.toString(state), Arrays.toString(gradients),
                    Arrays.toString(Arrays.stream(heap).map(b -> b >> 20).toArray()));
            return j.steadySeconds;
        }

        long stateBytes() {
            return Arrays.stream(state).max().orElse(0);
        }

        long gradientBytes() {
            return Arrays.stream(gradients).max().orElse(0);
        }

        /** The larger worker's optimizer state plus gradient buffers. */
        long heldBytes() {
            long most = 0;
            for (int w = 0; w < Math.min(state.length, gradients.length); w++) {
                most = Math.max(most, state[w] + gradients[w]);
            }
            return most;
        }

        Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("optimizer_state_bytes_per_worker", state);
            m.put("gradient_buffer_bytes_per_worker", gradients);
            m.put("optimizer_state_bytes_larger_worker", stateBytes());
            m.put("gradient_buffer_bytes_larger_worker", gradientBytes());
            m.put("step_ms_median", TrialTimes.round(TrialTimes.median(stepMs.stream()
                    .mapToDouble(Double::doubleValue).toArray()), 1));
            m.put("heap_mib_per_worker_last_step", Arrays.stream(heap).map(b -> b >> 20)
                    .toArray());
            m.put("rss_mib_per_worker_last_step", Arrays.stream(rss).map(b -> b >> 20)
                    .toArray());
            m.put("step_ms", MlpJobs.series("wall ms per steady step (driver's epoch time /"
                    + " steps)", stepMs, 1));
            m.put("comm_ms", MlpJobs.series("ms per step in the collectives (all-reduce, or"
                    + " reduce-scatter + all-gather)", comm, 1));
            return m;
        }
    }
}
