package dev.dml.ray.train;

import dev.dml.options.LrSchedule;
import dev.dml.options.OptimizerKind;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.LearningRateSchedule;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.settings.OptionRuleTable;
import java.util.List;

/**
 * The optimizer of a spec with the options that shape each update ({@code --optimizer}, {@code
 * --lr}, {@code --lr-schedule}, {@code --warmup}, {@code --weight-decay}, {@code
 * --clip-norm}). Part of {@link SpecResolution}; the rules that refuse {@code --clip-norm}
 * and {@code --early-stop} where the job cannot honour them are in {@link OptionRuleTable}.
 */
final class UpdateResolution {

    /** SGD's momentum, as in the engine's benchmarks and PyTorch's usual setting. */
    private static final float SGD_MOMENTUM = 0.9f;

    private UpdateResolution() {}

    /**
     * The optimizer set whole, else the one {@code --optimizer} names; {@code --lr} wins; then
     * the schedule over the job's steps, the weight decay and the clip norm, each where its
     * option is set (a schedule always for an optimizer named by {@code --optimizer}).
     *
     * @param notices where a note for the cell goes (a warm-up longer than the job)
     */
    static OptimizerSpec optimizer(TrainSpecBuilder b, OptionValues v, int stepsPerEpoch,
            List<String> notices) {
        float lr = v.get(TrainOptions.LR).floatValue();
        OptimizerSpec base;
        if (b.optimizer != null) {
            base = v.isSet(TrainOptions.LR) ? b.optimizer.withLearningRate(lr) : b.optimizer;
        } else {
            base = v.get(TrainOptions.OPTIMIZER) == OptimizerKind.SGD
                    ? OptimizerSpec.sgd(lr, SGD_MOMENTUM) : OptimizerSpec.adam(lr);
        }
        long total = (long) v.get(TrainOptions.EPOCHS) * stepsPerEpoch;
        int warmup = v.get(TrainOptions.WARMUP);
        if (warmup > total) {
            notices.add("{warmup=" + warmup + "} is longer than the job's " + total + " steps:"
                    + " the learning rate stays below {lr}. Lower {warmup} to reach it.");
        }
        OptimizerSpec out = base;
        // an OptimizerSpec set whole keeps its own settings where no option overrides them
        if (b.optimizer == null || v.isSet(TrainOptions.LR_SCHEDULE)
                || v.isSet(TrainOptions.WARMUP)) {
            LearningRateSchedule s = schedule(v.get(TrainOptions.LR_SCHEDULE), warmup,
                    stepsPerEpoch, total);
            out = out.withSchedule(warmup > 0 ? new LearningRateSchedule.Warmup(warmup, s) : s);
        }
        if (v.isSet(TrainOptions.WEIGHT_DECAY)) {
            out = out.withWeightDecay(v.get(TrainOptions.WEIGHT_DECAY).floatValue());
        }
        Double clip = v.get(TrainOptions.CLIP_NORM);
        return clip == null ? out : out.withClipNorm(clip.floatValue());
    }

    /** The schedule a valid {@code --lr-schedule} value names, over the job's steps. */
    static LearningRateSchedule schedule(LrSchedule s, int warmup, int stepsPerEpoch,
            long total) {
        return switch (s.kind()) {
            case CONSTANT -> LearningRateSchedule.constant();
            case COSINE -> new LearningRateSchedule.Cosine(warmup, total);
            case STEP -> new LearningRateSchedule.StepDecay(s.every(), s.gamma(), stepsPerEpoch);
        };
    }
}
