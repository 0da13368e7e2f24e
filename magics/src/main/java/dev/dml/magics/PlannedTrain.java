package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.cost.JobPlan;
import dev.dml.cost.PlanRow;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.PlanOptions;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import java.util.List;
import java.util.Objects;

/**
 * {@code %dml train --plan BEST|ROW}: the job of the session's last plan, at the size of the
 * chosen row. The plan predicted that job, so only what leaves its time alone may be added:
 * where the result goes, checkpoints, limits, and how the cell shows it.
 */
final class PlannedTrain {

    /** Options {@code --plan} accepts beside it: none changes what the plan predicted. */
    private static final List<Option<?>> KEPT = List.of(TrainOptions.PLAN, TrainOptions.INTO,
            TrainOptions.BACKGROUND, TrainOptions.DETACH, TrainOptions.NO_PLOTS,
            TrainOptions.DEBUG, TrainOptions.BUDGET, TrainOptions.DEADLINE,
            TrainOptions.CHECKPOINT_DIR,
            TrainOptions.CHECKPOINT_EVERY, TrainOptions.CHECKPOINT_STORE,
            TrainOptions.CHECKPOINT_FAILURE, TrainOptions.MAX_FAILURES);

    private PlannedTrain() {}

    /**
     * Returns the request to run: the request itself without {@code --plan}, else the plan's
     * job at the chosen row's size.
     *
     * @param session the session, whose last plan {@code --plan} names
     * @param request the cell's request
     * @return the request and, with {@code --plan}, the row
     * @throws DmlException one line when there is no plan, no such row, or an option would
     *     change the planned job
     */
    static Chosen resolve(DmlSession session, TrainRequest request) {
        if (!request.options().isSet(TrainOptions.PLAN)) {
            return new Chosen(request, null);
        }
        DmlSession.PlannedJob planned = session.lastPlan();
        JobPlan plan = planned.plan();
        PlanRow row = plan.choose(request.get(TrainOptions.PLAN));
        TrainRequest job = planned.request();
        if (request.source() != null && !request.source().equals(job.source())) {
            throw new DmlException("{plan} runs the planned job on '" + DmlException.literal(
                    job.source()) + "', not '" + DmlException.literal(request.source()) + "'.",
                    "Drop the data from the line, or plan the job on the other data first.");
        }
        // the plan's --into named the plan's variable, not the trained model's
        OptionValues v = job.options().without(TrainOptions.INTO);
        for (Option<?> o : PlanOptions.ALL) {
            v = v.without(o);
        }
        for (Option<?> o : request.options().given()) {
            if (!KEPT.contains(o)) {
                if (!Objects.equals(request.options().get(o), job.options().get(o))) {
                    throw new DmlException("{plan} runs the job as it was planned, and "
                            + o.flag() + " would change its predicted time.", "Plan again with"
                            + " " + o.flag() + ", or drop it from this line.");
                }
                continue;
            }
            v = copy(v, request.options(), o);
        }
        v = v.without(TrainOptions.PLAN).with(TrainOptions.WORKERS,
                WorkerRange.of(row.workers()));
        return new Chosen(new TrainRequest(job.source(), v), row);
    }

    private static <T> OptionValues copy(OptionValues to, OptionValues from, Option<T> o) {
        return to.with(o, from.get(o));
    }

    /**
     * What runs.
     *
     * @param request the request to run
     * @param row the plan's row it runs; null without {@code --plan}
     */
    record Chosen(TrainRequest request, PlanRow row) {

        /** The line the cell shows first: which row runs, and what it predicted. */
        String line() {
            return "Running row " + row.row() + " of the plan: " + row.workers()
                    + (row.workers() == 1 ? " worker" : " workers") + " on " + row.nodes()
                    + ", predicted " + JobPlan.duration(row.seconds()) + (row.usdPerHour() > 0
                            ? " and " + JobPlan.dollars(row.usd()) : "") + ".";
        }
    }
}
