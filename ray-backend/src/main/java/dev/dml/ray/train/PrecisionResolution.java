package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.Precision;

/**
 * Refuses {@code --precision bf16|fp16} where it cannot work, one line each. bf16 always: DJL
 * 0.35.1's PyTorch engine cannot make bfloat16 tensors. fp16 runs dml's own linear and
 * convolution layers, so a model whose forward is the user's, or that has no such layer, is
 * refused. It scales the loss and skips the steps whose gradients overflow, which every holder
 * of a gradient must agree on: it runs data-parallel jobs whose gradients cross the wire as they
 * are. And it needs GPUs, since CPUs run half-float products about 20 times slower than float32
 * (docs/gpu.md, "Precision").
 */
final class PrecisionResolution {

    private PrecisionResolution() {}

    /**
     * Checks the options against the job.
     *
     * @param v the options
     * @param strategy the resolved strategy
     * @param model the resolved model
     */
    static void check(OptionValues v, Strategy strategy, ModelSpec model) {
        dev.dml.options.Precision precision = v.get(TrainOptions.PRECISION);
        if (precision == dev.dml.options.Precision.FP32) {
            return;
        }
        Precision.of(precision).requireEngineSupport();
        String flag = "{precision=" + precision + "}";
        if (model.family() == ModelSpec.Family.CUSTOM || model.family() == ModelSpec.Family.MF) {
            throw new DmlException(flag + " runs dml's linear and convolution layers in half"
                    + " floats;"
                    + (model.family() == ModelSpec.Family.MF ? " an mf model has none."
                            : " a model from {block} runs its own forward."),
                    "Leave {precision} out.");
        }
        String why = null;
        String fix = null;
        if (v.get(TrainOptions.GPUS_PER_WORKER) == 0) {
            why = "this job has no GPUs, and CPUs run half-float products about 20 times"
                    + " slower than float32";
            fix = "set {gpus-per-worker}";
        } else if (strategy instanceof Strategy.Staged s) {
            why = "the strategy " + DmlException.literal(s) + " splits the gradients over"
                    + " stages, which would each skip different steps";
            fix = "use {strategy=data}";
        } else if (!v.get(TrainOptions.COMPRESS).isNone()) {
            why = "{compress} would send the loss-scaled gradients, up to 65536 times their"
                    + " size, and keep overflows in its error feedback";
            fix = "leave {compress} out";
        }
        if (why != null) {
            throw new DmlException(flag + " scales the loss and skips steps that overflow, but "
                    + why + ".", "Leave {precision} out, or " + fix + ".");
        }
    }
}
