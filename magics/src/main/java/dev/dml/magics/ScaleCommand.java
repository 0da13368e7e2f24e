package dev.dml.magics;

import dev.dml.options.Option;
import dev.dml.options.ScaleOptions;
import dev.dml.options.TrainOptions;
import dev.dml.scaling.ScaleTable;
import java.util.List;

/**
 * {@code %dml scale}: runs the same job at each size on the session's cluster and shows the
 * seeds' table (workers, throughput, speedup, efficiency, time to a target accuracy, final
 * metric, dollars) and a plot of speedup against the ideal.
 */
final class ScaleCommand extends NamedCommand {

    static final String USAGE = "%dml scale TABLE|FILE --label COLUMN [job options of %dml"
            + " train] [--workers N|MIN:MAX] [--epochs E] [--steps-per-epoch S]"
            + " [--target ACCURACY] [--into NAME]";

    /** Options that make no sense for runs that are only timed. */
    private static final List<Option<?>> NOT_SCALED = List.of(TrainOptions.PLAN,
            TrainOptions.BACKGROUND, TrainOptions.DETACH, TrainOptions.RESUME,
            TrainOptions.CHECKPOINT_DIR);

    ScaleCommand() {
        super("scale",
                "run a job at several sizes: throughput, speedup, efficiency, time to target, $");
    }

    @Override
    public List<String> usage() {
        return TrainGrammar.helpLines(List.of(USAGE, "",
                "Runs the job at each number of workers (--workers 1:4 is every size from 1 to"
                        + " 4; default 1:2),",
                "each for --epochs of --steps-per-epoch steps (default 4 of 50), evaluating"
                        + " after each epoch.",
                "Speedup is throughput over the smallest size's; efficiency is speedup over"
                        + " its ideal.",
                "Example: %dml scale fraud --label is_fraud --validation 0.1 --workers 1:2"
                        + " --target 0.95", "",
                "Options, besides every option of %dml train:"), ScaleOptions.ALL);
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        TrainRequest request = TrainGrammar.SCALE.read(args, body);
        return Failures.showing(request.debug(), () -> {
            Sizing.refuseOptions(request, NOT_SCALED, "scale", "its runs are timed, not kept",
                    flag -> "Drop " + flag + ".");
            Sizing.measure(context, "scale", request, (b, status) -> b.scale(request, status),
                    (ScaleTable table) -> {
                        context.display(ScaleView.table(table));
                        context.display(ScaleView.chart(table));
                    });
            return null;
        });
    }
}
