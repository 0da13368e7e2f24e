package dev.dml.ray.plan;

import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.ProgressListener;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.TrainSpec;
import dev.dml.scaling.ScaleRow;
import dev.dml.scaling.ScaleTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs one job at several sizes, as {@code %dml scale} does, for the seeds' table of speedup
 * and efficiency: each size trains the same number of steps per worker batch ({@code
 * --steps-per-epoch} x {@code --epochs}, by default 4 epochs of 50 steps), evaluating after
 * each epoch, on the session's real cluster.
 *
 * <pre>{@code
 * ScaleTable t = ScaleStudy.builder().setSpec(spec).setDriver(driver).addSizes(1, 2)
 *         .optTarget(0.95).build().run();
 * }</pre>
 */
public final class ScaleStudy {

    static final int DEFAULT_EPOCHS = 4;
    static final int DEFAULT_STEPS = 50;

    private final Builder b;

    private ScaleStudy(Builder b) {
        this.b = b;
    }

    /**
     * Starts a study.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs the job at each size, smallest first.
     *
     * @return the table
     */
    public ScaleTable run() {
        TrainSpec spec = b.dataParallelSpec("A scaling table", "Run it without {strategy}.");
        boolean classes = spec.columns().labelKind() == LabelKind.CLASSES;
        boolean validated = spec.validationTable().isPresent();
        if (!Double.isNaN(b.target) && (!classes || !validated)) {
            throw new DmlException(!classes ? "{target} is a validation accuracy, and this job's"
                    + " label holds regression targets." : "{target} times the validation"
                    + " accuracy, and this job holds out no validation rows.", !classes
                    ? "Drop {target}." : "Add {validation=0.1}, or drop {target}.");
        }
        int epochs = spec.options().isSet(TrainOptions.EPOCHS) ? spec.epochs() : DEFAULT_EPOCHS;
        int steps = spec.options().isSet(TrainOptions.STEPS_PER_EPOCH)
                ? spec.get(TrainOptions.STEPS_PER_EPOCH) : DEFAULT_STEPS;
        List<Integer> sizes = b.sizesOr(List.of(1, 2));
        List<ScaleRow> rows = new ArrayList<>();
        int n = 0;
        for (int w : sizes) {
            n++;
            b.progress.accept(String.format(Locale.ROOT, "Size %d of %d: %d %s, %d epochs of %d"
                    + " steps …", n, sizes.size(), w, w == 1 ? "worker" : "workers", epochs,
                    steps));
            TrainSpec sized = spec.toBuilder().opt(TrainOptions.WORKERS, WorkerRange.of(w))
                    .opt(TrainOptions.EPOCHS, epochs).opt(TrainOptions.STEPS_PER_EPOCH, steps)
                    .opt(TrainOptions.RECORD, false).build(); // measured, not recorded
            rows.add(measure(sized, w, classes));
        }
        String job = String.format(Locale.ROOT, "%s: %d epochs of %d steps per size, batch %d"
                + " per worker", spec.name(), epochs, steps, spec.batchSize());
        return ScaleTable.of(job, classes ? "accuracy" : "validation loss", b.target, rows);
    }

    private ScaleRow measure(TrainSpec sized, int workers, boolean classes) {
        Run run = new Run();
        run.t0 = System.nanoTime();
        TrainJob.start(sized, b.driver, run).await();
        double wall = (System.nanoTime() - run.t0) / 1e9;
        List<EpochMetrics> epochs;
        List<Double> at;
        synchronized (run) {
            epochs = List.copyOf(run.epochs);
            at = List.copyOf(run.at);
        }
        double[] rates = epochs.subList(Math.min(1, epochs.size() - 1), epochs.size()).stream()
                .mapToDouble(EpochMetrics::examplesPerSecond).sorted().toArray();
        double toTarget = Double.NaN;
        for (int i = 0; i < epochs.size() && !Double.isNaN(b.target); i++) {
            if (epochs.get(i).validationAccuracy() >= b.target) {
                toTarget = at.get(i);
                break;
            }
        }
        EpochMetrics last = epochs.get(epochs.size() - 1);
        double metric = classes ? last.validationAccuracy() : last.validationLoss();
        return new ScaleRow(workers, median(rates), Double.NaN, Double.NaN, toTarget, metric,
                run.usd, wall);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** One size's events: each evaluation and when it arrived, and the dollars spent. */
    private static final class Run implements ProgressListener {
        long t0;
        final List<EpochMetrics> epochs = new ArrayList<>();
        final List<Double> at = new ArrayList<>();
        volatile double usd;

        @Override
        public synchronized void onEpoch(EpochMetrics e) {
            epochs.add(e);
            at.add((System.nanoTime() - t0) / 1e9);
        }

        @Override
        public void onCost(JobCost c) {
            usd = c.priced() ? c.usdSpent() : 0;
        }
    }

    /**
     * The study's settings: {@code setX} required, {@code optX} and {@code addX} not. Without
     * {@code addSizes}, 1 and 2 workers; the spec's {@code --epochs} and {@code
     * --steps-per-epoch}, when given, are each size's (by default 4 and 50).
     */
    public static final class Builder extends SizingBuilder<Builder> {
        private double target = Double.NaN;

        private Builder() {}

        /**
         * Sets the validation accuracy whose first reaching each size times.
         *
         * @param accuracy above 0 and at most 1
         * @return this builder
         */
        public Builder optTarget(double accuracy) {
            if (!(accuracy > 0 && accuracy <= 1)) {
                throw new DmlException("{target} must be a validation accuracy above 0 and at"
                        + " most 1, got " + accuracy + ".", "Write e.g. {target=0.9}.");
            }
            this.target = accuracy;
            return this;
        }

        /**
         * Checks the settings.
         *
         * @return the study
         */
        public ScaleStudy build() {
            checkRequired("study");
            return new ScaleStudy(this);
        }
    }
}
