package dev.dml.bench;

import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * One dml job a benchmark runs in every round (P1, P2, P8, P10, P15, M1), and what its timed
 * rounds measured: the seconds of its timed epochs (in {@link #samples}, as {@link SideBySide}
 * records them) and each step's compute and all-reduce. The first epoch is the warm-up; the
 * epochs after it are timed.
 */
class JobCase {

    final String name;
    final String what;
    final TrainSpec spec;
    final TrialTimes samples;
    /** Examples one run's timed epochs go through. */
    final long examples;
    /** Steps in one run's timed epochs. */
    final int steadySteps;
    final List<Double> compute = new ArrayList<>();
    final List<Double> comm = new ArrayList<>();
    long allReduceBytes;
    /** Per timed run, kept by {@link #keepRun}: the driver's ms a step, start-up, warm-up. */
    final List<Double> driverMs = new ArrayList<>();
    final List<Double> startup = new ArrayList<>();
    final List<Double> firstEpoch = new ArrayList<>();

    /** A data-parallel job: every worker takes a batch a step in the timed epochs. */
    JobCase(String name, String what, TrainSpec spec) {
        this(name, what, spec, (long) steadySteps(spec) * spec.batchSize() * spec.workers());
    }

    JobCase(String name, String what, TrainSpec spec, long examples) {
        this.name = name;
        this.what = what;
        this.spec = spec;
        this.examples = examples;
        this.steadySteps = steadySteps(spec);
        this.samples = new TrialTimes(name, 0);
    }

    /** @return the steps of the timed epochs: every epoch after the first, the warm-up */
    static int steadySteps(TrainSpec spec) {
        return (spec.epochs() - 1) * spec.stepsPerEpoch();
    }

    /**
     * Refuses a job whose table does not split into the steps per epoch its benchmark states.
     *
     * @param name the job, for the message
     * @param spec the job
     * @param steps the steps per epoch the benchmark's numbers assume
     */
    static void requireStepsPerEpoch(String name, TrainSpec spec, int steps) {
        if (spec.stepsPerEpoch() != steps) {
            throw new IllegalStateException(name + " has " + spec.stepsPerEpoch()
                    + " steps per epoch, not " + steps + ".");
        }
    }

    /** Keeps a timed run's mean step: the slowest rank's compute and all-reduce, and bytes. */
    void keepStep(MlpJobs.JobRun j) {
        compute.add(j.stepComputeMs);
        comm.add(j.stepCommMs);
        allReduceBytes = j.allReduceBytes;
    }

    /** Keeps a timed run's step as {@link #keepStep} does, and its driver time and start-up. */
    void keepRun(MlpJobs.JobRun j) {
        keepStep(j);
        driverMs.add(j.driverMsPerStep(steadySteps));
        startup.add(j.startupSeconds());
        firstEpoch.add(j.firstEpochSeconds);
    }

    /** @return the median of the timed rounds' examples per second */
    double medianRate() {
        return samples.medianRate(examples);
    }

    /** @return each timed round's examples per second */
    List<Double> rates() {
        return samples.rates(examples);
    }
}
