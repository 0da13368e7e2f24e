package dev.dml.magics.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/** Realistic, seeded samples of a training job for the tests: a clock they control too. */
final class Samples {

    static final List<WorkerRow> WORKERS = List.of(new WorkerRow(0, "node-a", 4101),
            new WorkerRow(1, "node-a", 4102), new WorkerRow(2, "node-b", 5201),
            new WorkerRow(3, "node-b", 5202));

    /** Nanoseconds, moved by the test. */
    final AtomicLong nanos = new AtomicLong();
    private final Random random = new Random(7);

    LiveDashboard dashboard(int epochs, long totalSteps) {
        return new LiveDashboard("fraud-mlp", epochs, totalSteps, nanos::get, "t-");
    }

    void advanceSeconds(double seconds) {
        nanos.addAndGet((long) (seconds * 1e9));
    }

    /** Step {@code step} of epoch {@code epoch}: loss falls with noise, four workers. */
    StepSample step(int epoch, long step, boolean gpu) {
        double loss = 0.15 + 0.55 * Math.exp(-step / 800.0) + 0.03 * random.nextGaussian();
        double[] cpu = new double[WORKERS.size()];
        long[] heap = new long[cpu.length];
        long[] rss = new long[cpu.length];
        double[] gpuPercent = new double[gpu ? cpu.length : 0];
        for (int r = 0; r < cpu.length; r++) {
            cpu[r] = 80 + 10 * r + 5 * random.nextDouble();
            heap[r] = (200L + 20 * r + random.nextInt(40)) << 20;
            rss[r] = (900L + 50 * r + random.nextInt(60)) << 20;
            if (gpu) {
                gpuPercent[r] = 60 + 8 * r;
            }
        }
        return new StepSample(epoch, step, loss, 12_000 + 800 * random.nextGaussian(), 8.5,
                1.5, 4L << 20, cpu, heap, rss, gpuPercent, 0);
    }

    /** Feeds {@code steps} steps spread over {@code epochs} epochs, with validation if asked. */
    void feed(LiveDashboard d, int epochs, long steps, boolean validation, boolean gpu) {
        long perEpoch = steps / epochs;
        for (long s = 1; s <= steps; s++) {
            int e = (int) ((s - 1) / perEpoch) + 1;
            d.addStep(step(e, s, gpu));
            if (s % perEpoch == 0) {
                d.addEpoch(new EpochSample(e, perEpoch, 0.2 + 0.3 / e, 20, 12_000,
                        validation ? 0.25 + 0.3 / e : Double.NaN,
                        validation ? 0.9 + 0.01 * e : Double.NaN, Double.NaN));
            }
        }
    }

    /** Four pipeline stages; the middle ones wait longest. */
    static List<StageSample> stages() {
        List<StageSample> out = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            out.add(new StageSample(s, 40 - 3 * s, 6 + (s % 3) * 5, (3L + s) << 20));
        }
        return out;
    }
}
