package dev.dml.magics;

import dev.dml.cost.JobPlan;
import dev.dml.options.Option;
import dev.dml.options.PlanOptions;
import dev.dml.options.TrainOptions;
import java.util.List;

/**
 * {@code %dml plan}: probes the job at each size on the session's cluster, predicts its wall
 * time and cost, and shows the configurations ranked, with the Pareto front of time against
 * dollars and the best under {@code --deadline} or {@code --budget}. {@code %dml train --plan
 * BEST} then runs it.
 *
 * <p>The probes run on a thread of their own ({@link Sizing}): a kernel interrupt stops the
 * probe under way (its job and workers end) before the cell ends, as {@code %dml train} does.
 */
final class PlanCommand extends NamedCommand {

    static final String USAGE = "%dml plan TABLE|FILE --label COLUMN [job options of %dml"
            + " train] [--workers N|MIN:MAX] [--instances T1,T2] [--probe-steps N]"
            + " [--deadline TIME | --budget USD] [--into NAME]";

    /** Options that make no sense before a job runs. */
    private static final List<Option<?>> NOT_PLANNED = List.of(TrainOptions.PLAN,
            TrainOptions.BACKGROUND, TrainOptions.DETACH, TrainOptions.RESUME);

    PlanCommand() {
        super("plan", "predict a job's time and cost at each size before it runs, and pick one");
    }

    @Override
    public List<String> usage() {
        return TrainGrammar.helpLines(List.of(USAGE, "",
                "Runs a short probe of the job at each number of workers on the cluster,",
                "predicts the whole job's wall time and cost, and ranks the configurations.",
                "--workers 1:4 compares every size from 1 to 4 (default: 1 up to what the"
                        + " cluster holds).",
                "With --deadline it picks the cheapest that meets it; with --budget the fastest"
                        + " within it.",
                "Then: %dml train --plan BEST (or a row number) runs that configuration.",
                "Example: %dml plan fraud --label is_fraud --epochs 5 --deadline 10m", "",
                "Options, besides every option of %dml train:"), PlanOptions.ALL);
    }

    @Override
    public Object run(CommandContext context, List<String> args, String body) {
        TrainRequest request = TrainGrammar.PLAN.read(args, body);
        return Failures.showing(request.debug(), () -> {
            Sizing.refuseOptions(request, NOT_PLANNED, "plan", "it plans a job before it runs",
                    flag -> "Drop " + flag + "; give it to %dml train --plan BEST after the"
                            + " plan.");
            Sizing.measure(context, "plan", request, (b, status) -> b.plan(request, status),
                    plan -> show(context, request, plan));
            return null;
        });
    }

    private static void show(CommandContext context, TrainRequest request, JobPlan plan) {
        context.session().keepPlan(new DmlSession.PlannedJob(request, plan));
        context.display(PlanView.table(plan));
        context.display(PlanView.chart(plan));
    }
}
