package dev.dml.magics.live;

import dev.dml.events.EpochMetrics;
import dev.dml.events.PipelineMetrics;
import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/** Realistic, seeded samples of a training job for the tests: a clock they control too. */
final class Samples {

    static final List<WorkerInfo> WORKERS = List.of(
            new WorkerInfo(0, 4, 4101, "host", "node-a", "10.0.0.5"),
            new WorkerInfo(1, 4, 4102, "host", "node-a", "10.0.0.5"),
            new WorkerInfo(2, 4, 5201, "host", "node-b", "10.0.0.6"),
            new WorkerInfo(3, 4, 5202, "host", "node-b", "10.0.0.6"));

    /** Nanoseconds, moved by the test. */
    final AtomicLong nanos = new AtomicLong();
    private final Random random = new Random(7);

    LiveDashboard dashboard(int epochs, long totalSteps) {
        return new LiveDashboard("fraud-mlp", epochs, totalSteps, nanos::get, "t-");
    }

    /** A dashboard whose job started on {@link #WORKERS}. */
    LiveDashboard started(int epochs, long totalSteps) {
        LiveDashboard d = dashboard(epochs, totalSteps);
        d.onStart(WORKERS);
        return d;
    }

    /** A dashboard fed all of its job's steps and epochs, as {@link #feed} feeds them. */
    LiveDashboard fed(int epochs, long steps, boolean validation, boolean gpu) {
        LiveDashboard d = started(epochs, steps);
        feed(d, epochs, steps, validation, gpu);
        return d;
    }

    void advanceSeconds(double seconds) {
        nanos.addAndGet((long) (seconds * 1e9));
    }

    /** Step {@code step} of epoch {@code epoch}: loss falls with noise, four workers. */
    StepMetrics step(int epoch, long step, boolean gpu) {
        double loss = 0.15 + 0.55 * Math.exp(-step / 800.0) + 0.03 * random.nextGaussian();
        List<ProcessSample> workers = new ArrayList<>();
        for (int r = 0; r < WORKERS.size(); r++) {
            double cpu = 80 + 10 * r + 5 * random.nextDouble();
            long heap = (200L + 20 * r + random.nextInt(40)) << 20;
            long rss = (900L + 50 * r + random.nextInt(60)) << 20;
            workers.add(gpu ? new ProcessSample(cpu, heap, rss, 60 + 8 * r, 2L << 30)
                    : new ProcessSample(cpu, heap, rss));
        }
        return new StepMetrics(epoch, step, (float) loss, 256,
                12_000 + 800 * random.nextGaussian(), 8.5, 1.5, 4L << 20, 3L << 20, workers, 0);
    }

    /** A step with no worker samples. */
    static StepMetrics step(int epoch, long step, double loss, double examplesPerSecond,
            long reportedAtMillis) {
        return new StepMetrics(epoch, step, (float) loss, 100, examplesPerSecond, 1, 1, 0, 0,
                List.of(), reportedAtMillis);
    }

    /** Feeds {@code steps} steps spread over {@code epochs} epochs, with validation if asked. */
    void feed(LiveDashboard d, int epochs, long steps, boolean validation, boolean gpu) {
        long perEpoch = steps / epochs;
        for (long s = 1; s <= steps; s++) {
            int e = (int) ((s - 1) / perEpoch) + 1;
            d.onStep(step(e, s, gpu));
            if (s % perEpoch == 0) {
                d.onEpoch(new EpochMetrics(e, s, perEpoch, 0.2f + 0.3f / e, 20, 12_000,
                        validation ? 0.25f + 0.3f / e : Float.NaN,
                        validation ? 0.9 + 0.01 * e : Double.NaN, Double.NaN));
            }
        }
    }

    /** Four pipeline stages at a step; the middle ones wait longest. */
    /**
     * The frame of a job with every chart: 4 workers on 2 nodes, at step 3,000 of 5,000 in its
     * 5th epoch, with validation, GPUs and pipeline stages, 63 s after it started.
     */
    Frame everyChart() {
        LiveDashboard d = started(5, 5_000);
        feed(d, 5, 3_000, true, true);
        d.onPipeline(pipeline(3_000));
        advanceSeconds(63);
        return d.frame();
    }

    static PipelineMetrics pipeline(long step) {
        List<PipelineMetrics.StageTime> out = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            out.add(new PipelineMetrics.StageTime(40 - 3 * s, 6 + (s % 3) * 5, 0,
                    (3L + s) << 20));
        }
        return new PipelineMetrics(step, 60, 4, out);
    }
}
