package dev.dml.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import com.google.gson.Gson;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.device.GpuSampler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * P13's measuring JVM, which {@link GpuSamplerCost} starts with the {@code nvidia-smi} to use
 * first on its {@code PATH} and one PyTorch thread, as a worker runs. It trains a worker's step
 * ({@link ModelStage#trainBatch} then {@link ModelStage#step}) with no GPU sampler, with one at
 * a worker's period ({@link GpuSampler#PERIOD}) and with one at {@link #STRESS}, alternately
 * ({@link SideBySide}), and times single queries. Prints one line, {@code P13 } and the numbers
 * as JSON, which the parent reads.
 */
final class SamplerSteps {

    static final int INPUTS = 784;
    static final int CLASSES = 10;
    static final int[] HIDDEN = {1024, 1024};
    static final int BATCH = 512;
    static final int BATCHES = 4;
    static final int STEPS = 100;
    static final Rounds ROUNDS = new Rounds(1, 9);
    static final int QUERIES = 50;
    static final Duration STRESS = Duration.ofMillis(50);
    /** The GPU the sampler looks for: the stand-in's one line, or a GPU node's first GPU. */
    static final long GPU = 0;
    /** Linux's USER_HZ, the unit of cutime and cstime in /proc/self/stat. */
    private static final double TICKS_PER_SECOND = 100.0;

    private SamplerSteps() {}

    /** One way of running the steps: its sampler period (null: none) and what it measured. */
    private static final class Side {
        final String name;
        final Duration every;
        final TrialTimes times;
        final List<Double> queries = new ArrayList<>();
        final List<Double> p95Ms = new ArrayList<>();
        final List<Double> maxMs = new ArrayList<>();

        Side(String name, Duration every) {
            this.name = name;
            this.every = every;
            this.times = new TrialTimes(name, 0);
        }

        Map<String, Object> json(String what) {
            Map<String, Object> m = new LinkedHashMap<>(times.toJson(what));
            m.remove("bytes");
            m.remove("mb_per_s");
            m.put("step_ms", TrialTimes.round(times.medianSeconds() * 1e3 / STEPS, 2));
            m.put("step_p95_ms", MlpJobs.series("per trial: the 95th percentile of its "
                    + STEPS + " steps", p95Ms, 2));
            m.put("step_max_ms", MlpJobs.series("per trial: its slowest step", maxMs, 2));
            if (every != null) {
                m.put("period_ms", every.toMillis());
                m.put("queries_per_trial", MlpJobs.series("queries the sampler started during"
                        + " a trial (the first at its start)", queries, 0));
            }
            return m;
        }
    }

    /**
     * Measures and prints the line.
     *
     * @param args none
     * @throws Exception if a step fails
     */
    public static void main(String[] args) throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        try (GpuSampler probe = GpuSampler.start(GPU, null)) {
            if (!probe.sampleOnce()) {
                throw new IllegalStateException("The nvidia-smi first on PATH printed no line"
                        + " for GPU " + GPU + "; run it by hand to see why.");
            }
            out.put("query", queries(probe));
        }
        Side off = new Side("no_sampler", null);
        Side goal = new Side("sampler_worker_period", GpuSampler.PERIOD);
        Side stress = new Side("sampler_stress_period", STRESS);
        ModelSpec spec = ModelSpec.mlp(INPUTS, CLASSES, HIDDEN);
        try (NDManager manager = NDManager.newBaseManager("PyTorch");
                ModelStage model = ModelStage.openWhole(spec, OptimizerSpec.adam(1e-3f),
                        "bench/p13")) {
            NDArray[][] batches = batches(manager);
            SideBySide run = new SideBySide(ROUNDS);
            for (Side s : List.of(off, goal, stress)) {
                run.add(s.times, round -> trial(model, batches, s, round));
            }
            run.run();
            out.put("parameters", model.parameterCount());
        }
        out.put("ratio", goal.times.medianSeconds() / off.times.medianSeconds());
        out.put("stress_ratio", stress.times.medianSeconds() / off.times.medianSeconds());
        out.put("paired_ratios", paired(goal, off));
        out.put("stress_paired_ratios", paired(stress, off));
        String steps = STEPS + " steps (trainBatch + Adam step) of the MLP";
        out.put("no_sampler", off.json(steps + ", no sampler"));
        out.put("sampler_worker_period", goal.json(steps + ", GpuSampler.start(0, "
                + GpuSampler.PERIOD.toMillis() + " ms) running (a worker's period)"));
        out.put("sampler_stress_period", stress.json(steps + ", GpuSampler.start(0, "
                + STRESS.toMillis() + " ms) running (the stress case)"));
        System.out.println("P13 " + new Gson().toJson(out));
    }

    /** One trial: {@link #STEPS} steps with the side's sampler running from just before. */
    private static double trial(ModelStage model, NDArray[][] batches, Side side, Round round) {
        double[] ms = new double[STEPS];
        long t0;
        long t1;
        try (GpuSampler sampler = side.every == null ? null : GpuSampler.start(GPU, side.every)) {
            t0 = System.nanoTime();
            for (int i = 0; i < STEPS; i++) {
                long s0 = System.nanoTime();
                NDArray[] b = batches[i % BATCHES];
                model.trainBatch(b[0], b[1]);
                model.step();
                ms[i] = (System.nanoTime() - s0) / 1e6;
            }
            t1 = System.nanoTime();
            if (sampler != null) {
                if (sampler.queries() == 0) {
                    throw new IllegalStateException("The sampler ran no query in "
                            + (t1 - t0) / 1e9 + " s.");
                }
                if (round.timed()) {
                    side.queries.add((double) sampler.queries());
                }
            }
        }
        if (round.timed()) {
            double[] sorted = ms.clone();
            Arrays.sort(sorted);
            side.p95Ms.add(sorted[(int) Math.ceil(0.95 * STEPS) - 1]);
            side.maxMs.add(sorted[STEPS - 1]);
        }
        return (t1 - t0) / 1e9;
    }

    /** Random inputs and labels: the step's time does not depend on the values. */
    private static NDArray[][] batches(NDManager manager) {
        Random rnd = new Random(13);
        NDArray[][] b = new NDArray[BATCHES][];
        for (int k = 0; k < BATCHES; k++) {
            float[] x = new float[BATCH * INPUTS];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) rnd.nextGaussian();
            }
            int[] y = new int[BATCH];
            for (int i = 0; i < BATCH; i++) {
                y[i] = rnd.nextInt(CLASSES);
            }
            b[k] = new NDArray[] {manager.create(x, new Shape(BATCH, INPUTS)),
                manager.create(y)};
        }
        return b;
    }

    /** Times {@link #QUERIES} queries on this thread: wall, this thread's CPU, children's CPU. */
    private static Map<String, Object> queries(GpuSampler sampler) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        List<Double> wallMs = new ArrayList<>();
        List<Double> cpuMs = new ArrayList<>();
        double children0 = childrenCpuSeconds();
        for (int i = 0; i < QUERIES; i++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            sampler.sampleOnce();
            wallMs.add((System.nanoTime() - t0) / 1e6);
            cpuMs.add((threads.getCurrentThreadCpuTime() - c0) / 1e6);
        }
        double children1 = childrenCpuSeconds();
        double childrenMs = children0 < 0 ? -1 : (children1 - children0) * 1e3 / QUERIES;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", QUERIES + " queries in a row on one thread, each GpuSampler.sampleOnce():"
                + " start the process, wait for it, read and parse its output");
        m.put("wall_ms", MlpJobs.series("wall time of one query", wallMs, 3));
        m.put("jvm_thread_cpu_ms", MlpJobs.series("CPU of the querying JVM thread (spawn,"
                + " wait, read, parse)", cpuMs, 3));
        m.put("child_cpu_ms_mean", childrenMs < 0 ? "unknown (no /proc)"
                : TrialTimes.round(childrenMs, 3));
        m.put("child_cpu_is", "the query processes' own CPU (cutime + cstime of this JVM, in"
                + " 10 ms ticks, over all " + QUERIES + " queries), which runs beside the JVM");
        return m;
    }

    /** cutime + cstime of this process (its waited-for children), or -1 without /proc. */
    private static double childrenCpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            return (Long.parseLong(f[13]) + Long.parseLong(f[14])) / TICKS_PER_SECOND;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Trial-by-trial ratios of the same round. */
    private static List<Double> paired(Side subject, Side peer) {
        double[] s = subject.times.seconds();
        double[] p = peer.times.seconds();
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < s.length; i++) {
            r.add(TrialTimes.round(s[i] / p[i], 4));
        }
        return r;
    }
}
