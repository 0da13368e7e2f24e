package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import java.util.List;

/**
 * The {@link Strategy} a spec's options describe: {@code --strategy} with {@code --stages},
 * {@code --microbatches}, {@code --replicas}, {@code --schedule} and {@code --balance}, or the
 * strategy given whole with {@link TrainSpecBuilder#optStrategy}.
 */
final class StrategyOptions {

    /** The options that shape a strategy; all but the first shape a staged one. */
    private static final List<Option<?>> SHAPING = List.of(TrainOptions.STRATEGY,
            TrainOptions.STAGES, TrainOptions.MICROBATCHES, TrainOptions.REPLICAS,
            TrainOptions.SCHEDULE, TrainOptions.BALANCE);
    private static final List<Option<?>> STAGED = SHAPING.subList(1, SHAPING.size());

    private StrategyOptions() {}

    /**
     * Resolves the strategy.
     *
     * @param given the strategy set whole, or null
     * @param v the options
     * @return the strategy
     * @throws DmlException when options do not fit the strategy
     */
    static Strategy resolve(Strategy given, OptionValues v) {
        if (given != null) {
            for (Option<?> o : SHAPING) {
                if (v.isSet(o)) {
                    throw new DmlException("{" + o.name() + "} conflicts with the strategy set"
                            + " whole (" + given + ").", "Set it on the Strategy, or drop it.");
                }
            }
            return given;
        }
        String kind = v.get(TrainOptions.STRATEGY);
        if (kind.equals("data")) {
            if (STAGED.stream().anyMatch(v::isSet)) {
                throw new DmlException("{stages}, {microbatches}, {replicas}, {schedule} and"
                        + " {balance} apply to a model, pipeline or hybrid strategy.",
                        "Add {strategy=pipeline} (or model, hybrid), or drop those options.");
            }
            return Strategy.data();
        }
        if (kind.equals("model") && (v.isSet(TrainOptions.MICROBATCHES)
                || v.isSet(TrainOptions.SCHEDULE))) {
            throw new DmlException("{microbatches} and {schedule} apply to pipeline and hybrid"
                    + " jobs, not to the model strategy.",
                    "Use {strategy=pipeline}, or drop them.");
        }
        if (!kind.equals("hybrid") && v.isSet(TrainOptions.REPLICAS)) {
            throw new DmlException("{replicas} applies to the hybrid strategy.",
                    "Use {strategy=hybrid} with {replicas} and {stages}, or drop {replicas}.");
        }
        int k = TrainOptions.stageCount(v);
        Strategy.Schedule schedule = v.get(TrainOptions.SCHEDULE).equals("1f1b")
                ? Strategy.Schedule.ONE_F_ONE_B : Strategy.Schedule.GPIPE;
        Strategy.Staged staged = switch (kind) {
            case "model" -> Strategy.model(k);
            case "pipeline" -> Strategy.pipeline(k, v.get(TrainOptions.MICROBATCHES), schedule);
            default -> Strategy.hybrid(v.get(TrainOptions.REPLICAS), k,
                    v.get(TrainOptions.MICROBATCHES)).withSchedule(schedule);
        };
        List<Integer> stages = v.get(TrainOptions.STAGES);
        if (stages.size() > 1) {
            staged = staged.withLayers(stages.stream().mapToInt(Integer::intValue).toArray());
        }
        if (v.get(TrainOptions.BALANCE).equals("time")) {
            staged = staged.withBalance(Strategy.Balance.TIME);
        }
        return staged;
    }
}
