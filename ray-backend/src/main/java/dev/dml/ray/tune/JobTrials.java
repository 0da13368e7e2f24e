package dev.dml.ray.tune;

import dev.dml.events.ProgressListener;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.runs.RecordedJobs;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.tune.Trial;
import dev.dml.tune.TrialLauncher;
import java.util.List;
import java.util.Objects;

/**
 * Starts a Java sweep's trials as recorded jobs on one driver, as {@code Dml.start(spec,
 * driver)} starts a job: each trial's spec is the sweep's base spec with the trial's options
 * (its varied values, the sweep's id) set on it.
 *
 * @param base the sweep's base spec
 * @param driver the driver every trial runs on
 * @param first the first trial's spec, built when the sweep was: the others are built as they
 *     start
 */
record JobTrials(TrainSpec base, DriverProcess driver, TrainSpec first) implements TrialLauncher {

    /**
     * Builds a trial's spec: the base with every option the trial gives otherwise.
     *
     * @param base the sweep's base spec
     * @param trial the trial
     * @return the spec, validated
     */
    static TrainSpec spec(TrainSpec base, Trial trial) {
        TrainSpecBuilder b = base.toBuilder();
        OptionValues given = base.options();
        for (Option<?> o : trial.options().given()) {
            if (!given.isSet(o) || !Objects.equals(given.get(o), trial.options().get(o))) {
                set(b, o, trial.options());
            }
        }
        return b.build();
    }

    private static <T> void set(TrainSpecBuilder b, Option<T> option, OptionValues values) {
        b.opt(option, values.get(option));
    }

    @Override
    public Running start(Trial trial, ProgressListener progress) {
        TrainSpec spec = trial.number() == 1 ? first : spec(base, trial);
        return running(RecordedJobs.start(spec, driver, List.of(progress), () -> { }));
    }

    private static Running running(TrainJob job) {
        return Running.of(job::awaitEnd, job::stop, job::await, () -> job.await().stopped());
    }
}
