package dev.dml.kernel;

import dev.dml.magics.TrainRequest;
import dev.dml.DmlException;
import dev.dml.ray.train.Strategy;
import dev.dml.ray.train.TrainSpecBuilder;
import java.util.List;

/** Maps {@code --strategy} and its options onto the engine's {@link Strategy}. */
final class Strategies {

    /** Defaults for a split job: two stages, four micro-batches, two replicas. */
    private static final int STAGES = 2;
    private static final int MICROBATCHES = 4;
    private static final int REPLICAS = 2;

    private Strategies() {}

    static void apply(TrainSpecBuilder b, TrainRequest r) {
        String name = r.strategy() == null ? "data" : r.strategy();
        if (name.equals("data")) {
            if (r.stages() != null || r.microbatches() != null || r.replicas() != null
                    || r.schedule() != null || r.balance() != null) {
                throw new DmlException("--stages, --microbatches, --replicas, --schedule and"
                        + " --balance apply to --strategy model, pipeline or hybrid.",
                        "Add --strategy pipeline (or model, hybrid), or drop those options.");
            }
            return;
        }
        List<Integer> stages = r.stages() == null ? List.of(STAGES) : r.stages();
        int k = stages.size() == 1 ? stages.get(0) : stages.size();
        int m = r.microbatches() == null ? MICROBATCHES : r.microbatches();
        if (name.equals("model") && (r.microbatches() != null || r.schedule() != null)) {
            throw new DmlException("--microbatches and --schedule apply to pipeline and hybrid"
                    + " jobs, not to --strategy model.", "Use --strategy pipeline, or drop them.");
        }
        if (!name.equals("hybrid") && r.replicas() != null) {
            throw new DmlException("--replicas applies to --strategy hybrid.",
                    "Use --strategy hybrid --replicas D --stages K, or drop --replicas.");
        }
        Strategy.Staged staged = switch (name) {
            case "model" -> Strategy.model(k);
            case "pipeline" -> Strategy.pipeline(k, m, schedule(r, Strategy.Schedule.GPIPE));
            default -> Strategy.hybrid(r.replicas() == null ? REPLICAS : r.replicas(), k, m)
                    .withSchedule(schedule(r, Strategy.Schedule.ONE_F_ONE_B));
        };
        if (stages.size() > 1) {
            staged = staged.withLayers(stages.stream().mapToInt(Integer::intValue).toArray());
        }
        if ("time".equals(r.balance())) {
            staged = staged.withBalance(Strategy.Balance.TIME);
        }
        b.optStrategy(staged);
    }

    private static Strategy.Schedule schedule(TrainRequest r, Strategy.Schedule fallback) {
        if (r.schedule() == null) {
            return fallback;
        }
        return r.schedule().equals("1f1b") ? Strategy.Schedule.ONE_F_ONE_B
                : Strategy.Schedule.GPIPE;
    }
}
