package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.cost.Pricing;
import dev.dml.events.JobCost;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.ClusterPricing;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainJob;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code --budget} on the embedded cluster, priced at $36 an hour (a cent a second) with {@code
 * %dml cluster price}'s task, so that a budget of a few cents is spent in seconds: the job
 * checkpoints and stops before its cost passes the budget, by at most one step's cost, says so,
 * and a resumed run with a new budget goes on from that checkpoint.
 */
class BudgetIT extends LocalClusterTests {

    /** More epochs than either budget buys, at any step time (direct links make steps fast). */
    private static final int EPOCHS = 5000;


    private static final double USD_PER_HOUR = 36;
    private static final Table FRAUD = SyntheticFraud.generate(5_000, 11);

    @TempDir
    static Path dir;

    @BeforeAll
    static void setThePrice() {
        driver.call(new ClusterPricing(Pricing.NONE.withRate(USD_PER_HOUR)));
    }

    /** What the cell's live plot would get: the job's dollars and its notices. */
    static final class Costs extends RecordedEvents {
        /** The cost when the last step ended: the first figure sent at that step. */
        JobCost atStep(long step) {
            return costs.stream().filter(c -> c.step() == step).findFirst().orElseThrow();
        }
    }

    private static TrainSpec job(double budget, boolean resume, Costs costs) {
        return TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 64, 32).optOptimizer(OptimizerSpec.adam(1e-2f))
                .optEpochs(EPOCHS).optBatchSize(64).optWorkers(2).optCpusPerWorker(1)
                .optCheckpoints(dir, 1000).optResume(resume).opt(TrainOptions.BUDGET, budget)
                .optName("budget").addListener(costs).build();
    }

    @Test
    void aBudgetStopsTheJobBeforeItIsPassedAndResumeGoesOnWithANewOne() {
        double budget = 0.10; // ten seconds, of which the workers' start takes a few
        Costs first = new Costs();
        TrainResult r = TrainJob.start(job(budget, false, first), driver).await();
        long stoppedAt = r.globalSteps();
        assertTrue(r.stopped() && stoppedAt > 1 && stoppedAt < EPOCHS * 39L, "steps " + stoppedAt);
        JobCost last = first.atStep(stoppedAt);
        double stepCost = USD_PER_HOUR * last.secondsPerStep() / 3600;
        assertTrue(last.usdSpent() <= budget + slack(stepCost), "spent $" + last.usdSpent()
                + " of $" + budget + "; a step costs $" + stepCost);
        assertEquals(USD_PER_HOUR, last.usdPerHour(), "one node, the head, paid whole");
        assertTrue(last.nodes().startsWith("1 node: $36/h"), last.nodes());
        String notice = first.notices.get(first.notices.size() - 1);
        assertTrue(notice.startsWith("--budget: stopped after $") && notice.endsWith("(step "
                + stoppedAt + "). Checkpoint of step " + stoppedAt + " written: --resume with"
                + " a new --budget or --deadline continues from there."), notice);

        Costs second = new Costs();
        double more = 0.30; // the resumed run's own budget: its start and restore come first
        TrainResult again = TrainJob.start(job(more, true, second), driver).await();
        assertEquals(stoppedAt, again.resumedFromStep());
        assertTrue(again.stopped() && again.globalSteps() > stoppedAt,
                "the new budget bought more steps: " + again.globalSteps());
        JobCost spent = second.atStep(again.globalSteps());
        assertTrue(spent.usdSpent() <= more + slack(USD_PER_HOUR * spent.secondsPerStep()
                / 3600), "the resumed run keeps to its own budget: $" + spent.usdSpent());
    }

    /**
     * What a run may spend past its budget (docs/cost.md): its last step, or, where steps take
     * milliseconds, the latency of its last call to the workers (0.1 s of the node's time, a
     * thousandth of a dollar here), whichever is more.
     */
    private static double slack(double stepCost) {
        return Math.max(stepCost, USD_PER_HOUR * 0.1 / 3600);
    }
}
