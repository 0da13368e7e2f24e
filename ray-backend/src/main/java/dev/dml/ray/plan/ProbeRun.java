package dev.dml.ray.plan;

import dev.dml.events.EpochMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one probe and measures it. The probe calls its workers for as many steps at a time as
 * the job will ({@code reportEvery}), so each step carries the job's share of a call's
 * overhead. The first half of the steps are warm-up (class loading, the JIT, the allocator),
 * so the steady step time is the median over the later calls.
 */
final class ProbeRun implements ProgressListener {

    private final List<StepMetrics> steps = new ArrayList<>();
    private volatile List<WorkerInfo> placed = List.of();
    private volatile long lastStepNanos;
    private volatile long epochNanos;

    private ProbeRun() {}

    /**
     * Runs the probe to its end.
     *
     * @param spec the probe's spec ({@link TrainSpec#probe})
     * @param driver the session's driver
     * @return what it measured
     */
    static Probe run(TrainSpec spec, DriverProcess driver) {
        ProbeRun run = new ProbeRun();
        long t0 = System.nanoTime();
        TrainJob.start(spec, driver, run).await();
        double wall = (System.nanoTime() - t0) / 1e9;
        return run.measure(spec.workers(), wall);
    }

    @Override
    public void onStart(List<WorkerInfo> workers) {
        placed = List.copyOf(workers);
    }

    @Override
    public synchronized void onStep(StepMetrics step) {
        steps.add(step);
        lastStepNanos = System.nanoTime();
    }

    @Override
    public void onEpoch(EpochMetrics epoch) {
        epochNanos = System.nanoTime();
    }

    private synchronized Probe measure(int workers, double wall) {
        // Steps arrive in chunks, one per call to the workers, stamped when the slowest
        // worker finished it: the time between stamps is the steps' real wall time, the
        // per-call overhead included.
        List<long[]> chunks = new ArrayList<>(); // {last step, finished at millis}
        for (StepMetrics s : steps) {
            if (chunks.isEmpty() || chunks.get(chunks.size() - 1)[1] != s.reportedAtMillis()) {
                chunks.add(new long[] {s.step(), s.reportedAtMillis()});
            } else {
                chunks.get(chunks.size() - 1)[0] = s.step();
            }
        }
        List<Double> perStep = new ArrayList<>();
        for (int i = Math.max(1, chunks.size() / 2); i < chunks.size(); i++) {
            long[] a = chunks.get(i - 1);
            long[] b = chunks.get(i);
            if (b[0] > a[0]) {
                perStep.add((b[1] - a[1]) / 1e3 / (b[0] - a[0]));
            }
        }
        List<StepMetrics> steady = steps.subList(steps.size() / 2, steps.size());
        double eval = epochNanos > lastStepNanos ? (epochNanos - lastStepNanos) / 1e9 : 0;
        return new Probe(workers, steps.size(), wall,
                median(perStep.stream().mapToDouble(Double::doubleValue).toArray()), eval,
                median(steady.stream().mapToDouble(StepMetrics::computeMillis).toArray()),
                median(steady.stream().mapToDouble(StepMetrics::commMillis).toArray()),
                (long) median(steady.stream().mapToDouble(StepMetrics::allReduceBytes)
                        .toArray()), placed);
    }

    private static double median(double[] v) {
        if (v.length == 0) {
            return 0;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
