package dev.dml.ray.train.settings;

import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.PipelineSchedule;
import dev.dml.options.StrategyKind;
import dev.dml.options.TrainOptions;
import java.util.List;

/**
 * The {@link Strategy} a spec's options describe: {@code --strategy} with {@code --stages},
 * {@code --microbatches}, {@code --replicas}, {@code --schedule} and {@code --balance}, or the
 * strategy given whole with {@link dev.dml.ray.train.TrainSpecBuilder#optStrategy}.
 */
public final class StrategyOptions {

    /** The options that shape a strategy; all but the first shape a staged one. */
    static final List<Option<?>> SHAPING = List.of(TrainOptions.STRATEGY,
            TrainOptions.STAGES, TrainOptions.MICROBATCHES, TrainOptions.REPLICAS,
            TrainOptions.SCHEDULE, TrainOptions.BALANCE);
    static final List<Option<?>> STAGED = SHAPING.subList(1, SHAPING.size());

    private StrategyOptions() {}

    /**
     * Resolves the strategy.
     *
     * @param given the strategy set whole, or null
     * @param v the options
     * @return the strategy
     * @throws DmlException when options do not fit the strategy (the rules of {@link
     *     OptionRules.Point#SHAPE})
     */
    public static Strategy resolve(Strategy given, OptionValues v) {
        OptionRules.check(OptionRules.Point.SHAPE, OptionRules.Facts.of(v).withGiven(given));
        if (given != null) {
            return given;
        }
        StrategyKind kind = v.get(TrainOptions.STRATEGY);
        if (kind == StrategyKind.DATA) {
            return Strategy.data();
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
