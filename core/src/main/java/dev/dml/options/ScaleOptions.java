package dev.dml.options;

import java.util.List;

/**
 * The options {@code %dml scale} takes besides {@code %dml train}'s, each declared once. It
 * reads every train option as the job it runs at each size would; {@link TrainOptions#WORKERS}
 * names the sizes ({@code 1:4} is every size from 1 to 4).
 */
public final class ScaleOptions {

    private ScaleOptions() {}

    /** The validation accuracy each size is timed to. */
    public static final Option<Double> TARGET = Declaration.kernel("target",
            ValueType.positive(), "ACCURACY", "the validation accuracy whose first reaching"
            + " each size times (classification, with --validation)").example("0.9")
            .noDefault("none").java("ScaleStudy.optTarget").done();

    /** Every option {@code %dml scale} adds. */
    public static final List<Option<?>> ALL = List.of(TARGET);
}
