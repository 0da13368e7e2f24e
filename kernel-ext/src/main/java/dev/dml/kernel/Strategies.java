package dev.dml.kernel;

import dev.dml.magics.TrainRequest;
import dev.dml.ray.DmlException;
import dev.dml.ray.train.TrainSpecBuilder;

/** Maps {@code --strategy} and its options onto the engine's strategies. */
final class Strategies {

    private Strategies() {}

    static void apply(TrainSpecBuilder b, TrainRequest r) {
        String strategy = r.strategy() == null ? "data" : r.strategy();
        if (strategy.equals("data")) {
            if (r.stages() != null || r.microbatches() != null || r.replicas() != null
                    || r.schedule() != null) {
                throw new DmlException("--stages, --microbatches, --replicas and --schedule"
                        + " apply to --strategy model, pipeline or hybrid.",
                        "Add --strategy pipeline (or model, hybrid), or drop those options.");
            }
            return;
        }
        throw new DmlException("--strategy " + strategy + " is not in this build.",
                "Use --strategy data.");
    }
}
