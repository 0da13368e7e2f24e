package dev.dml.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One side (dml or PyTorch) of one {@link DdpJob}: its trajectory run (the warm-up, which
 * scores the test split as it goes) and its timed runs.
 */
final class DdpSide {

    private final DdpJob setting;
    private final String what;
    private final TrialTimes timed;
    private final List<DdpRun> runs = new ArrayList<>();
    private final List<Double> loads = new ArrayList<>();
    private DdpRun trajectory;

    DdpSide(DdpJob setting, String name, String what) {
        this.setting = setting;
        this.what = what;
        this.timed = new TrialTimes(setting.name() + "_" + name, 0);
    }

    /** Returns where the harness puts the timed seconds. */
    TrialTimes samples() {
        return timed;
    }

    /** Keeps a run: the trajectory in the warm-up round, else a timed one. */
    double record(Round round, DdpRun r, double loadAverage) {
        if (round.timed()) {
            runs.add(r);
            loads.add(loadAverage);
        } else {
            trajectory = r;
        }
        double s = r.secondsAfter(DdpJob.WARM_STEPS);
        System.out.printf("  %-14s %7.0f examples/s, first step at %5.1f s%s%n", timed.name(),
                setting.timedExamples() / s, r.firstStepAt(),
                round.timed() ? "" : ", accuracy " + r.accuracy());
        return s;
    }

    /** Returns the steps until the test accuracy first reaches the target, or -1. */
    int targetStep() {
        return trajectory.firstStepReaching(setting.targetAccuracy());
    }

    /** Returns the seconds from the first step to the target, per timed run (empty if never). */
    List<Double> trainingToTarget() {
        int s = targetStep();
        return s < 0 ? List.of() : runs.stream().map(r -> r.trainingSecondsTo(s)).toList();
    }

    /** Returns the seconds from the launch to the target, per timed run (empty if never). */
    List<Double> launchToTarget() {
        int s = targetStep();
        return s < 0 ? List.of() : runs.stream().map(r -> r.launchSecondsTo(s)).toList();
    }

    Map<String, Object> toJson() {
        List<Double> rates = new ArrayList<>();
        for (double s : timed.seconds()) {
            rates.add(setting.timedExamples() / s);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("what", what);
        m.put("examples_per_s", MlpJobs.series("global examples/s from the end of step "
                + DdpJob.WARM_STEPS + " to the end of the last step", rates, 1));
        m.put("first_step_at_s", MlpJobs.series("start-up: launch to the first step's start",
                runs.stream().map(DdpRun::firstStepAt).toList(), 3));
        m.put("target_step", targetStep());
        if (targetStep() > 0) {
            m.put("training_s_to_target", MlpJobs.series("first step's start to the end of"
                    + " target_step", trainingToTarget(), 3));
            m.put("launch_s_to_target", MlpJobs.series("launch to the end of target_step",
                    launchToTarget(), 3));
        }
        m.put("test_accuracy_by_step", trajectory.accuracy());
        List<Float> losses = runs.stream().map(DdpRun::finalLoss).toList();
        m.put("final_losses", losses);
        m.put("trajectory_final_loss", trajectory.finalLoss());
        m.put("timed_runs_repeat_the_trajectory", losses.stream()
                .allMatch(l -> l.floatValue() == trajectory.finalLoss()));
        if (!trajectory.parts().isEmpty()) {
            Map<String, Object> parts = new LinkedHashMap<>();
            for (String k : trajectory.parts().keySet()) {
                parts.put(k, MlpJobs.series(k, runs.stream().map(r -> r.parts().get(k))
                        .toList(), 2));
            }
            m.put("per_step", parts);
        }
        m.put("load_average_1min_at_run_start", loads);
        return m;
    }
}
