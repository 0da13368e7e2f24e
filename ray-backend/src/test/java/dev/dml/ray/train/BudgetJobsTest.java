package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.Vocabulary;
import dev.dml.cost.Pricing;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.ClusterPricing;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.JobRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job priced at $36 an hour (a cent a second) on Ray's LOCAL mode, with a budget of a few
 * cents: it checkpoints and stops before its cost passes the budget, overshooting by at most
 * one step's cost, says why, and {@code --resume} with a new budget goes on from there.
 */
@ExtendWith(LocalRayExtension.class)
class BudgetJobsTest {

    private static final double USD_PER_HOUR = 36;

    @TempDir
    Path dir;

    private TrainSpec job(double budget, boolean resume) {
        return CheckpointJobsTest.job(5000, dir, 1000).optResume(resume)
                .opt(TrainOptions.BUDGET, budget).build();
    }

    private static TrainResult run(TrainSpec spec, FakeDriverContext ctx) throws Exception {
        new ClusterPricing(Pricing.NONE.withRate(USD_PER_HOUR)).run(ctx);
        try {
            return JobRunner.of(spec, spec.name(), Duration.ofMinutes(2)).run(ctx);
        } finally {
            ctx.release("dml-pricing");
        }
    }

    /** The cost when the last step ended: the first figure sent at that step. */
    private static JobCost atLastStep(FakeDriverContext ctx, long step) {
        return ctx.events(JobCost.class).stream().filter(c -> c.step() == step).findFirst()
                .orElseThrow();
    }

    private static List<String> notices(FakeDriverContext ctx) {
        return ctx.events(JobNotice.class).stream()
                .map(n -> Vocabulary.NOTEBOOK.render(n.template())).toList();
    }

    @Test
    void aBudgetStopsTheJobBeforeItIsPassedAndResumeGoesOnWithANewOne() throws Exception {
        double budget = 0.10; // ten seconds of the job's nodes, of which the start takes a few
        FakeDriverContext first = new FakeDriverContext();
        TrainResult r = run(job(budget, false), first);
        long stoppedAt = r.globalSteps();
        assertTrue(r.stopped(), "the budget stops the job");
        assertTrue(stoppedAt > 1 && stoppedAt < 5000L * 9, "steps: " + stoppedAt);
        JobCost last = atLastStep(first, stoppedAt);
        double stepCost = USD_PER_HOUR * last.secondsPerStep() / 3600;
        assertTrue(last.usdSpent() <= budget + stepCost, "spent $" + last.usdSpent()
                + " of $" + budget + ", a step costs $" + stepCost);
        assertTrue(last.usdSpent() > budget - 3 * stepCost - 0.002, "it used its budget: $"
                + last.usdSpent());
        assertEquals(USD_PER_HOUR, last.usdPerHour());
        assertTrue(last.priced());
        String notice = notices(first).get(notices(first).size() - 1);
        assertTrue(notice.startsWith("--budget: stopped after $"), notice);
        assertTrue(notice.endsWith("(step " + stoppedAt + "). Checkpoint of step " + stoppedAt
                + " written: --resume with a new --budget or --deadline continues from"
                + " there."), notice);

        FakeDriverContext second = new FakeDriverContext();
        TrainResult again = run(job(budget, true), second);
        assertEquals(stoppedAt, again.resumedFromStep());
        assertTrue(again.globalSteps() > stoppedAt, "the new budget bought more steps");
        JobCost spent = atLastStep(second, again.globalSteps());
        assertTrue(spent.usdSpent() <= budget + USD_PER_HOUR * spent.secondsPerStep() / 3600,
                "the new run keeps to its own budget: $" + spent.usdSpent());
    }
}
