package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.PipelineSchedule;
import dev.dml.options.StrategyKind;
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
        StrategyKind kind = v.get(TrainOptions.STRATEGY);
        if (kind == StrategyKind.DATA) {
            if (STAGED.stream().anyMatch(v::isSet)) {
                throw new DmlException("{stages}, {microbatches}, {replicas}, {schedule} and"
                        + " {balance} apply to a model, pipeline or hybrid strategy.",
                        "Add {strategy=pipeline} (or model, hybrid), or drop those options.");
            }
            return Strategy.data();
        }
        if (kind == StrategyKind.MODEL && (v.isSet(TrainOptions.MICROBATCHES)
                || v.isSet(TrainOptions.SCHEDULE))) {
            throw new DmlException("{microbatches} and {schedule} apply to pipeline and hybrid"
                    + " jobs, not to the model strategy.",
                    "Use {strategy=pipeline}, or drop them.");
        }
        if (kind != StrategyKind.HYBRID && v.isSet(TrainOptions.REPLICAS)) {
            throw new DmlException("{replicas} applies to the hybrid strategy.",
                    "Use {strategy=hybrid} with {replicas} and {stages}, or drop {replicas}.");
        }
        int k = TrainOptions.stageCount(v);
        PipelineSchedule schedule = v.get(TrainOptions.SCHEDULE);
        Strategy.Staged staged = switch (kind) {
            case MODEL -> Strategy.model(k);
            case PIPELINE -> Strategy.pipeline(k, v.get(TrainOptions.MICROBATCHES), schedule);
            default -> Strategy.hybrid(v.get(TrainOptions.REPLICAS), k,
                    v.get(TrainOptions.MICROBATCHES)).withSchedule(schedule);
        };
        List<Integer> stages = v.get(TrainOptions.STAGES);
        if (stages.size() > 1) {
            staged = staged.withLayers(stages.stream().mapToInt(Integer::intValue).toArray());
        }
        staged = staged.withBalance(v.get(TrainOptions.BALANCE));
        return staged;
    }
}
