package dev.dml.ray.plan;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.TrainSpec;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * What the builders of {@link JobPlanner} and {@link ScaleStudy} share: the job, the driver
 * its runs go through, the sizes to run it at, and where progress lines go.
 *
 * @param <B> the builder itself, so that the methods chain
 */
public abstract class SizingBuilder<B extends SizingBuilder<B>> {

    TrainSpec spec;
    DriverProcess driver;
    final TreeSet<Integer> sizes = new TreeSet<>();
    Consumer<String> progress = line -> { };

    SizingBuilder() {}

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Sets the job (required).
     *
     * @param s the job's spec
     * @return this builder
     */
    public B setSpec(TrainSpec s) {
        this.spec = Objects.requireNonNull(s, "spec");
        return self();
    }

    /**
     * Sets the driver the runs go through (required).
     *
     * @param d the session's driver, borrowed
     * @return this builder
     */
    public B setDriver(DriverProcess d) {
        this.driver = Objects.requireNonNull(d, "driver");
        return self();
    }

    /**
     * Adds numbers of workers to run the job at.
     *
     * @param workers sizes of at least 1
     * @return this builder
     */
    public B addSizes(int... workers) {
        for (int w : workers) {
            if (w < 1) {
                throw new DmlException("Sizes are numbers of workers of at least 1, got " + w
                        + ".", "Call addSizes(1, 2, 4).");
            }
            sizes.add(w);
        }
        return self();
    }

    /**
     * Sets where progress lines go while the runs go on.
     *
     * @param lines receives one line as each run starts (and, for a plan, ends)
     * @return this builder
     */
    public B optProgress(Consumer<String> lines) {
        this.progress = Objects.requireNonNull(lines, "lines");
        return self();
    }

    /** The sizes given, smallest first, or {@code fallback} when none were. */
    List<Integer> sizesOr(List<Integer> fallback) {
        return sizes.isEmpty() ? fallback : List.copyOf(sizes);
    }

    /**
     * The job, refused when it runs a staged strategy: sizes are compared for data-parallel
     * runs only.
     *
     * @param what the table the sizes make, e.g. {@code A plan}, for the message
     * @param fix the message's second line
     */
    TrainSpec dataParallelSpec(String what, String fix) {
        if (spec.strategy() instanceof Strategy.Staged) {
            throw new DmlException(what + " compares data-parallel sizes; {strategy} "
                    + spec.get(TrainOptions.STRATEGY) + " runs on a fixed number of workers.",
                    fix);
        }
        return spec;
    }

    /** Fails naming a missing required setting. */
    void checkRequired(String what) {
        if (spec == null || driver == null) {
            throw new DmlException("The " + what + " needs " + (spec == null ? "setSpec"
                    : "setDriver") + ".", "Call setSpec(spec) and setDriver(driver).");
        }
    }
}
