package dev.dml.bench;

import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * One job a scaling benchmark runs in every round, and what its timed rounds measured: the
 * seconds of its timed epochs (in {@link #samples}, as {@link SideBySide} records them) and
 * each step's compute and all-reduce.
 */
class JobCase {

    final String name;
    final String what;
    final TrainSpec spec;
    final TrialTimes samples;
    /** Examples one run's timed epochs go through. */
    final long examples;
    final List<Double> compute = new ArrayList<>();
    final List<Double> comm = new ArrayList<>();
    long allReduceBytes;

    JobCase(String name, String what, TrainSpec spec, long examples) {
        this.name = name;
        this.what = what;
        this.spec = spec;
        this.examples = examples;
        this.samples = new TrialTimes(name, 0);
    }

    /** Keeps a timed run's mean step: the slowest rank's compute and all-reduce, and bytes. */
    void keepStep(MlpJobs.JobRun j) {
        compute.add(j.stepComputeMs);
        comm.add(j.stepCommMs);
        allReduceBytes = j.allReduceBytes;
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
